"""One encode per tokenizer family, ours against llama.cpp's ``llama_tokenize``, measured alike.

For each vocab, fresh processes that import the library's code first (untimed on both sides:
llama.cpp's is loaded by ``import llama_cpp``; ours by importing every encoder module), then:

- "prepared" (column ``prep``): load the file, ``Tokenizer.prepare()`` (the tables otherwise
  built on first use; llama.cpp builds the same ones at load), encode one short sentence
  (warm-up), then time one ``encode`` of the ~0.56 MB mixed corpus (``corpus.py``: prose, code,
  multilingual), add_special and parse_special off;
- "total": what a one-shot user of ``load_tokenizer`` or the CLI waits for: load, the short
  warm-up encode, the corpus encode, no ``prepare()`` call, all timed;
- with ``--spans``, "arrays", "tokens" and "+iter": as "prepared" but ``tokenize_arrays`` (three
  columns, what the explorer asks) / ``tokenize`` (a ``Tokens`` sequence: the same columns, each
  ``Token`` built when read) / ``tokenize`` and a loop over every ``Token`` of it (what a caller that
  reads them all pays) instead of ``encode``, over llama.cpp's encode time.

llama.cpp does load + warm-up + encode through llama-cpp-python (``llama_model_load_from_file``
with ``vocab_only``, then the C call ``llama_tokenize``, its encode timed alone), in its own
fresh process, alternating with ours run by run so both see the same machine. Medians of
``--repeat`` rounds (``--best``: each side's fastest round, which other jobs on the machine
disturb least; ``--cpu``: each process's CPU time, not wall time, on both sides: a machine loaded by
other jobs makes a process wait for a core, which wall time counts); ratios are our time /
llama.cpp's (below 1: we are faster). All ids of all
runs on both sides are compared (by SHA-256). ``--all`` runs every vocabulary of ../shared/vocabs
and then the ones named below.

llama-cpp-python is never a dependency: pass the Python that has it (``--llama-python``, e.g. a
venv where ``pip install llama-cpp-python==0.3.36`` was built). Without it, only our figures.

    python -m benchmarks families [--only NAME ...|--all] [--spans] [--best] [--cpu] [--repeat N] [--size BYTES] [--llama-python PY]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

# name -> (family, path); shared copies when present, else the bundled asset where there is one
VOCABS: dict[str, tuple[str, tuple[str, ...]]] = {
    "bert-bge": ("WPM", ("vocabs/ggml-vocab-bert-bge.gguf", "assets/ggml-vocab-bert-bge.gguf")),
    "nomic-bert-moe": ("UGM", ("vocabs/ggml-vocab-nomic-bert-moe.gguf",)),
    "t5-unigram": ("UGM", ("data/t5-botchan-en-unigram-1000.gguf", "assets/t5-botchan-en-unigram-1000.gguf")),
    "rwkv-world": ("RWKV", ("data/rwkv-world-vocab.gguf", "assets/rwkv-world-vocab.gguf")),
    "llama-bpe": ("BPE, 280k merges", ("vocabs/ggml-vocab-llama-bpe.gguf",)),
    "gemma-4": ("gemma4", ("vocabs/ggml-vocab-gemma-4.gguf",)),
    "qwen2": ("BPE", ("vocabs/ggml-vocab-qwen2.gguf",)),
    "llama-spm": ("SPM", ("vocabs/ggml-vocab-llama-spm.gguf",)),
    "gemma3": ("SPM", ("data/gemma3-270m-vocab.gguf",)),
    # CJK unigrams of 8,000 pieces made for measuring (tools/make_cjk_unigram.py), on the mixed corpus and on
    # their own language's text ("/ja", "/zh": benchmarks/cjk_text.py, seed 2, text they were not trained on)
    "ja-unigram": ("UGM, ja 8k", ("benchmarks/data/ja-unigram-8000.gguf",)),
    "ja-unigram/ja": ("UGM 8k, ja text", ("benchmarks/data/ja-unigram-8000.gguf",)),
    "zh-unigram": ("UGM, zh 8k", ("benchmarks/data/zh-unigram-8000.gguf",)),
    "zh-unigram/zh": ("UGM 8k, zh text", ("benchmarks/data/zh-unigram-8000.gguf",)),
}

OURS = r"""
import hashlib, importlib, json, sys, time
sys.path.insert(0, sys.argv[1])
from tui_tok.loader import load_tokenizer
# the library's code is loaded before the clock starts, as ``import llama_cpp`` loads llama.cpp's
import tui_tok.gguf, tui_tok.sources, tui_tok.tokenizer.tokenizer, tui_tok.tokenizer.core.vocab
from tui_tok.tokenizer.tokenizer import ENCODERS
for module_name, _ in ENCODERS.values():
    importlib.import_module(module_name)
text = open(sys.argv[3], encoding="utf-8").read()
mode = sys.argv[4]
clock = getattr(time, sys.argv[5])
t0 = clock()
tok = load_tokenizer(sys.argv[2])
if mode != "total":
    tok.prepare()
tok.encode("Hello world, a short warm-up.", add_special=False)
t1 = clock()
if mode == "arrays":
    out = tok.tokenize_arrays(text, add_special=False, parse_special=False)
elif mode == "tokens":
    out = tok.tokenize(text, add_special=False, parse_special=False)
elif mode == "iterate":
    out = tok.tokenize(text, add_special=False, parse_special=False)
    for _token in out:
        pass
else:
    out = tok.encode(text, add_special=False, parse_special=False)
t2 = clock()
ids = out[0].tolist() if mode == "arrays" else out.ids.tolist() if mode in ("tokens", "iterate") else out
digest = hashlib.sha256(b"".join(i.to_bytes(4, "little") for i in ids)).hexdigest()
json.dump({"ready": t1 - t0, "encode": t2 - t1, "n": len(ids), "ids": digest}, sys.stdout)
"""

LLAMA = r"""
import ctypes, hashlib, json, sys, time
import llama_cpp as L
QUIET = L.llama_log_callback(lambda *a: None)  # kept referenced: a collected ctypes callback segfaults
L.llama_log_set(QUIET, ctypes.c_void_p(0))
L.llama_backend_init()
text = open(sys.argv[1], "rb").read()
clock = getattr(time, sys.argv[3])
t0 = clock()
params = L.llama_model_default_params()
params.vocab_only = True
model = L.llama_model_load_from_file(sys.argv[2].encode(), params)
vocab = L.llama_model_get_vocab(model)
buf = (L.llama_token * 64)()
L.llama_tokenize(vocab, b"Hello world, a short warm-up.", 29, buf, 64, False, False)
t1 = clock()
cap = len(text) + 16
out = (L.llama_token * cap)()
n = L.llama_tokenize(vocab, text, len(text), out, cap, False, False)
t2 = clock()
digest = hashlib.sha256(b"".join(i.to_bytes(4, "little") for i in out[:n])).hexdigest()
json.dump({"ready": t1 - t0, "encode": t2 - t1, "n": n, "ids": digest}, sys.stdout)
"""


def vocab_path(name: str) -> Path | None:
    if name not in VOCABS:  # --all: a file of ../shared/vocabs by its short name
        path = SHARED / "vocabs" / f"ggml-vocab-{name}.gguf"
        return path if path.is_file() else None
    for rel in VOCABS[name][1]:
        base = ROOT if rel.startswith(("assets/", "benchmarks/")) else SHARED
        path = base / rel
        if path.is_file():
            return path
    return None


def all_names() -> list[str]:
    """Every vocabulary of ../shared/vocabs (short names), then the named ones not among them."""
    shared = [p.name[len("ggml-vocab-") : -len(".gguf")] for p in sorted(SHARED.glob("vocabs/ggml-vocab-*.gguf"))]
    return shared + [n for n in VOCABS if n not in shared]


def run(cmd: list[str]) -> dict:
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        raise RuntimeError(res.stderr.strip().splitlines()[-1] if res.stderr.strip() else f"exit {res.returncode}")
    return json.loads(res.stdout)


def med(runs: list[dict], key: str, best: bool = False) -> float:
    """The median (``best``: the fastest) of the rounds' encode or total (ready + encode) time."""
    return (min if best else statistics.median)(
        [r["encode"] if key == "encode" else r["ready"] + r["encode"] for r in runs]
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks families", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="these vocabs only (names of the table, or of ../shared/vocabs)")
    parser.add_argument("--all", action="store_true", help="every vocabulary of ../shared/vocabs, then the others")
    parser.add_argument(
        "--spans",
        action="store_true",
        help="also time tokenize_arrays, tokenize, and tokenize + a loop over every Token",
    )
    parser.add_argument("--repeat", type=int, default=3, help="rounds per vocab (median printed)")
    parser.add_argument("--size", type=int, default=558_000, help="corpus size in bytes")
    parser.add_argument("--llama-python", help="a Python with llama-cpp-python installed (the peer)")
    parser.add_argument(
        "--best",
        action="store_true",
        help="each side's fastest round instead of the median (on a machine other jobs load)",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="CPU time of each process (time.process_time) instead of wall time: what other jobs on the machine change least",
    )
    args = parser.parse_args(argv)
    clock = "process_time" if args.cpu else "perf_counter"
    sys.path.insert(0, str(ROOT))
    from benchmarks.cjk_text import cjk_text
    from benchmarks.corpus import build_corpus

    modes = ["prepared", "total"] + (["arrays", "tokens", "iterate"] if args.spans else [])
    text = build_corpus(args.size)
    print(
        f"corpus: {len(text.encode()):,} bytes; {args.repeat} rounds, fresh processes, {'fastest' if args.best else 'medians'}, "
        f"{'CPU' if args.cpu else 'wall'} time; "
        "ratios are our time / llama.cpp's"
    )
    head = f"{'vocab':18} {'family':18} {'ours s':>7} {'llama s':>7} {'prep':>5} {'ours tot':>8} {'llama tot':>9} {'total':>5}"
    if args.spans:
        head += f" {'arrays':>6} {'tokens':>6} {'+iter':>6}"
    print(head + "  ids")
    with tempfile.TemporaryDirectory() as tmp:
        mixed_file = Path(tmp) / "corpus.txt"
        mixed_file.write_text(text, encoding="utf-8")
        for name in args.only or (all_names() if args.all else list(VOCABS)):
            corpus_file = mixed_file
            if "/" in name:  # the vocab's own language, same size
                lang = name.rsplit("/", 1)[1]
                corpus_file = Path(tmp) / f"{lang}.txt"
                if not corpus_file.exists():
                    corpus_file.write_text(cjk_text(lang, args.size, seed=2), encoding="utf-8")
            path = vocab_path(name)
            if path is None:
                print(f"{name:18} (file not found: needs ../shared)")
                continue
            family = VOCABS[name][0] if name in VOCABS else ""
            ours: dict[str, list[dict]] = {m: [] for m in modes}
            peer: list[dict] = []
            try:
                for _ in range(args.repeat):  # our runs and llama.cpp's alternate: both see the same load
                    for mode in modes:
                        ours[mode].append(
                            run([sys.executable, "-c", OURS, str(ROOT), str(path), str(corpus_file), mode, clock])
                        )
                        if args.llama_python and mode in ("prepared", "total"):
                            peer.append(run([args.llama_python, "-c", LLAMA, str(corpus_file), str(path), clock]))
            except RuntimeError as exc:
                print(f"{name:18} failed: {exc}")
                continue
            family = family or _family(path)
            o, o_total = med(ours["prepared"], "encode", args.best), med(ours["total"], "total", args.best)
            if not peer:
                print(f"{name:18} {family:18} {o:7.3f} {'-':>7} {'-':>5} {o_total:8.3f}")
                continue
            p, p_total = med(peer, "encode", args.best), med(peer, "total", args.best)
            line = f"{name:18} {family:18} {o:7.3f} {p:7.3f} {o / p:5.2f} {o_total:8.3f} {p_total:9.3f} {o_total / p_total:5.2f}"
            if args.spans:
                line += "".join(
                    f" {med(ours[m], 'encode', args.best) / p:6.2f}" for m in ("arrays", "tokens", "iterate")
                )
            digests = {(r["n"], r["ids"]) for runs in ours.values() for r in runs} | {(peer[0]["n"], peer[0]["ids"])}
            print(line + ("  equal" if len(digests) == 1 else "  DIFFER"), flush=True)
    return 0


def _family(path: Path) -> str:
    """``tokenizer.ggml.model`` of a file (for --all rows)."""
    from tui_tok.gguf import read_gguf

    return str(read_gguf(path).metadata.get("tokenizer.ggml.model", "?"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
