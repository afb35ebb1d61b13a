"""One encode per tokenizer family, ours against llama.cpp's ``llama_tokenize``, measured alike.

For each vocab: a fresh process imports the library's code (untimed on both sides: llama.cpp's
is loaded by ``import llama_cpp``; ours by importing every encoder module), loads the file,
builds the tables that are otherwise built on first use (``Tokenizer.prepare()``: llama.cpp
builds the same ones at load; the time is in "ready"), encodes one short sentence (warm-up),
then times one ``encode`` of the ~0.56 MB mixed corpus (``corpus.py``: prose, code,
multilingual), add_special and parse_special off. llama.cpp does the same through
llama-cpp-python (``llama_model_load_from_file`` with ``vocab_only``, then the C call
``llama_tokenize`` alone, timed), in its own fresh process, alternating with ours run by run so
both see the same machine. Medians of ``--repeat`` rounds; the ratio is ours / llama.cpp's
time (below 1: we are faster); "total" is the same ratio of ready + encode (what a one-shot user
waits for). All ids of both sides are compared (by SHA-256).

llama-cpp-python is never a dependency: pass the Python that has it (``--llama-python``, e.g. a
venv where ``pip install llama-cpp-python==0.3.36`` was built). Without it, only our figures.

    python -m benchmarks families [--only NAME ...] [--repeat N] [--size BYTES] [--llama-python PY]
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
t0 = time.perf_counter()
tok = load_tokenizer(sys.argv[2])
tok.prepare()
tok.encode("Hello world, a short warm-up.", add_special=False)
t1 = time.perf_counter()
ids = tok.encode(text, add_special=False, parse_special=False)
t2 = time.perf_counter()
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
t0 = time.perf_counter()
params = L.llama_model_default_params()
params.vocab_only = True
model = L.llama_model_load_from_file(sys.argv[2].encode(), params)
vocab = L.llama_model_get_vocab(model)
buf = (L.llama_token * 64)()
L.llama_tokenize(vocab, b"Hello world, a short warm-up.", 29, buf, 64, False, False)
t1 = time.perf_counter()
cap = len(text) + 16
out = (L.llama_token * cap)()
n = L.llama_tokenize(vocab, text, len(text), out, cap, False, False)
t2 = time.perf_counter()
digest = hashlib.sha256(b"".join(i.to_bytes(4, "little") for i in out[:n])).hexdigest()
json.dump({"ready": t1 - t0, "encode": t2 - t1, "n": n, "ids": digest}, sys.stdout)
"""


def vocab_path(name: str) -> Path | None:
    for rel in VOCABS[name][1]:
        base = ROOT if rel.startswith(("assets/", "benchmarks/")) else SHARED
        path = base / rel
        if path.is_file():
            return path
    return None


def run(cmd: list[str]) -> dict:
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        raise RuntimeError(res.stderr.strip().splitlines()[-1] if res.stderr.strip() else f"exit {res.returncode}")
    return json.loads(res.stdout)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks families", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", choices=sorted(VOCABS), help="these vocabs only")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per vocab (median printed)")
    parser.add_argument("--size", type=int, default=558_000, help="corpus size in bytes")
    parser.add_argument("--llama-python", help="a Python with llama-cpp-python installed (the peer)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from benchmarks.cjk_text import cjk_text
    from benchmarks.corpus import build_corpus

    text = build_corpus(args.size)
    print(f"corpus: {len(text.encode()):,} bytes; {args.repeat} rounds, fresh processes, medians")
    print(f"{'vocab':16} {'family':18} {'ours s':>8} {'llama s':>8} {'ratio':>6} {'ours ready':>10} {'llama ready':>11} {'total':>6}  ids")
    with tempfile.TemporaryDirectory() as tmp:
        mixed_file = Path(tmp) / "corpus.txt"
        mixed_file.write_text(text, encoding="utf-8")
        for name in args.only or list(VOCABS):
            corpus_file = mixed_file
            if "/" in name:  # the vocab's own language, same size
                lang = name.rsplit("/", 1)[1]
                corpus_file = Path(tmp) / f"{lang}.txt"
                if not corpus_file.exists():
                    corpus_file.write_text(cjk_text(lang, args.size, seed=2), encoding="utf-8")
            path = vocab_path(name)
            if path is None:
                print(f"{name:16} (file not found: needs ../shared)")
                continue
            ours: list[dict] = []
            peer: list[dict] = []
            for _ in range(args.repeat):
                ours.append(run([sys.executable, "-c", OURS, str(ROOT), str(path), str(corpus_file)]))
                if args.llama_python:
                    peer.append(run([args.llama_python, "-c", LLAMA, str(corpus_file), str(path)]))
            o = statistics.median(r["encode"] for r in ours)
            o_ready = statistics.median(r["ready"] for r in ours)
            if peer:
                p = statistics.median(r["encode"] for r in peer)
                p_ready = statistics.median(r["ready"] for r in peer)
                total = statistics.median(r["ready"] + r["encode"] for r in ours) / statistics.median(
                    r["ready"] + r["encode"] for r in peer
                )
                same = "equal" if (ours[0]["n"], ours[0]["ids"]) == (peer[0]["n"], peer[0]["ids"]) else "DIFFER"
                print(f"{name:16} {VOCABS[name][0]:18} {o:8.3f} {p:8.3f} {o / p:6.2f} {o_ready:10.3f} {p_ready:11.3f} {total:6.2f}  {same}")
            else:
                print(f"{name:16} {VOCABS[name][0]:18} {o:8.3f} {'-':>8} {'-':>6} {o_ready:10.3f} {'-':>11}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
