"""One huge word (1 MB of spaces, of one letter, of newlines) encoded by us and by llama.cpp.

A long run of spaces or a minified file pasted into the explorer is one pre-tokenizer word, and
the merge loop of one word is where a per-word Python loop costs most. This prints, per vocab
and kind of word, our encode time and peak RSS beside llama.cpp's for the same text on the same
machine, and whether the ids are equal.

Each case runs in a fresh process, so that peak RSS (the child's own ``VmHWM``) is the case's own: ours is a Python process that loads the vocab
(``load_tokenizer``) and encodes the word once (``add_special=False``); llama.cpp's is
``build/llama-huge``, llama.cpp's tokenizer code compiled -O2 the way ``llama_peer.py`` builds
it (``tests/fixtures/llama_bpe_oracle.py``: ``impl.tokenize`` copied verbatim), which loads the
same vocab from a text dump and tokenizes once. Times are of the encode call alone; RSS
includes each side's loaded vocab. Leaves out: GGUF reading on llama.cpp's side (its loader
reads a dump), the other families (UGM/WPM/RWKV have no pair merge).

    python -m benchmarks huge_word [--size MB] [--only VOCAB ...] [--kinds spaces letters newlines] [--no-peer]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VOCABS = ("qwen3-vocab", "gpt-2", "llama-spm", "phi-3", "gemma-4")
KINDS = {"spaces": " ", "letters": "a", "newlines": "\n"}
BINARY = Path(os.environ.get("TUI_TOK_LLAMA_HUGE", ROOT / "build" / "llama-huge"))

HUGE_MAIN = r"""
// argv: VOCABFILE TEXTFILE IDSFILE. Tokenizes the text once as llama_tokenize does
// (add_special=false, parse_special=false); prints "TIME seconds n_ids"; ids to IDSFILE (int32).
int main(int argc, char ** argv) {
    if (argc != 4) { std::cerr << "usage: llama-huge VOCABFILE TEXTFILE IDSFILE\n"; return 2; }
    llama_vocab vocab;
    llama_vocab::impl impl(vocab);
    try {
        read_vocab(argv[1], vocab, impl);
    } catch (const std::exception & e) {
        std::cout << "ERR " << e.what() << std::endl;
        return 0;
    }
    std::string text;
    {
        std::ifstream tf(argv[2], std::ios::binary);
        text.assign((std::istreambuf_iterator<char>(tf)), std::istreambuf_iterator<char>());
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<llama_token> ids = impl.tokenize(text, false, false);
    const auto t1 = std::chrono::steady_clock::now();
    std::ofstream of(argv[3], std::ios::binary);
    of.write((const char *) ids.data(), ids.size() * sizeof(llama_token));
    std::string hwm = "0", line;
    std::ifstream status("/proc/self/status");
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) { hwm = line.substr(6); }
    }
    std::cout << "TIME " << std::chrono::duration<double>(t1 - t0).count() << " " << ids.size() << " "
              << std::stoll(hwm) << std::endl;
    return 0;
}
"""


def _child(vocab_path: str, kind: str, size: int, ids_file: str) -> int:
    """In a fresh process: load, encode once, print "TIME seconds n_ids"; ids to ``ids_file``."""
    import numpy as np

    from tui_tok.loader import load_tokenizer

    tok = load_tokenizer(vocab_path)
    text = KINDS[kind] * size
    t0 = time.perf_counter()
    ids = tok.encode(text, add_special=False)
    seconds = time.perf_counter() - t0
    np.array(ids, dtype=np.int32).tofile(ids_file)
    print(f"TIME {seconds} {len(ids)} {_peak_kb()}", flush=True)
    return 0


def _peak_kb() -> int:
    """This process's peak RSS in kB (VmHWM: per address space, so not the parent's from before
    ``exec``, which ``ru_maxrss`` of a child forked from a big parent reports)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _run(cmd: list[str]) -> tuple[float, int, float]:
    """(seconds, n_ids, peak RSS in MB) of one child process printing "TIME seconds n_ids peak_kB"."""
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    line = next((x for x in proc.stdout.splitlines() if x.startswith(("TIME", "ERR"))), "")
    if proc.returncode or not line.startswith("TIME"):
        raise RuntimeError(f"{cmd[0]} failed (exit {proc.returncode}): {(proc.stdout + proc.stderr).strip()[-300:]}")
    _, seconds, n, peak_kb = line.split()
    return float(seconds), int(n), int(peak_kb) / 1024


def ensure_binary() -> Path | None:
    """Build ``build/llama-huge`` unless current; None (after one line saying why) if it cannot be."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fixtures import llama_bpe_oracle as oracle

    return oracle.build_current(HUGE_MAIN, BINARY, skipped="llama.cpp column skipped")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        return _child(argv[1], argv[2], int(argv[3]), argv[4])
    parser = argparse.ArgumentParser(prog="python -m benchmarks huge_word", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=1.0, help="word size in MB (default 1)")
    parser.add_argument(
        "--only", nargs="*", default=None, help=f"vocab names (default: those of {', '.join(VOCABS)} present)"
    )
    parser.add_argument(
        "--kinds", nargs="*", default=list(KINDS), choices=list(KINDS), help="kinds of word (default: all)"
    )
    parser.add_argument("--no-peer", action="store_true", help="ours only (no llama.cpp build or run)")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT / "tests"))
    from support import vocab_files
    from tui_tok.loader import load_tokenizer

    size = int(args.size * 1_000_000)
    exe = None if args.no_peer else ensure_binary()
    names = args.only or list(VOCABS)
    files = {v.name: v.path for v in vocab_files()}
    print(f"one word of {size:,} characters; add_special=False; each case a fresh process; RSS = peak")
    print(f"{'vocab':14s} {'word':9s} {'ours s':>8s} {'ours MB':>8s} {'llama s':>8s} {'llama MB':>8s} "
          f"{'time x':>7s} {'RSS x':>6s}  ids")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="huge-word-") as tmp_name:
        tmp = Path(tmp_name)
        for name in names:
            if name not in files:
                print(f"{name:14s} skipped: not available")
                continue
            vocab_file = None
            if exe is not None:
                from fixtures import llama_bpe_oracle as oracle

                vocab_file = oracle.write_vocab_file(load_tokenizer(files[name]).vocab, tmp / "vocab.txt")
            for kind in args.kinds:
                ours_ids, theirs_ids = tmp / "ours.bin", tmp / "theirs.bin"
                ours = _run([sys.executable, "-m", "benchmarks", "huge_word", "--child", str(files[name]), kind,
                             str(size), str(ours_ids)])  # fmt: skip
                row = f"{name:14s} {kind:9s} {ours[0]:8.2f} {ours[2]:8.0f}"
                if exe is not None and vocab_file is not None:
                    text_file = tmp / "text.txt"
                    text_file.write_bytes((KINDS[kind] * size).encode())
                    theirs = _run([str(exe), str(vocab_file), str(text_file), str(theirs_ids)])
                    same = ours_ids.read_bytes() == theirs_ids.read_bytes()
                    row += (f" {theirs[0]:8.2f} {theirs[2]:8.0f} {ours[0] / max(theirs[0], 1e-9):7.2f} "
                            f"{ours[2] / theirs[2]:6.2f}  {'equal' if same else 'DIFFERENT'} ({ours[1]})")  # fmt: skip
                else:
                    row += f" {'-':>8s} {'-':>8s} {'-':>7s} {'-':>6s}  ({ours[1]} ids)"
                print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
