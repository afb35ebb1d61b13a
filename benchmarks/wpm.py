"""WPM (BERT) encoder throughput vs llama.cpp: ``python -m benchmarks wpm [--file F] [--mb N]``.

Prints MB/s for: the one-off table builds, a cold word cache (every distinct word encoded
once) and a warm one, and the ratio to llama.cpp's WPM speed (~8 MB/s single-threaded on
this machine class; ``--llama-mbps`` overrides it).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSET = ROOT / "assets" / "ggml-vocab-bert-bge.gguf"
LLAMA_MBPS = 8.0


def load_vocab(path: Path):  # type: ignore[no-untyped-def]
    try:
        from tui_tok.loader import load_tokenizer

        return load_tokenizer(path).vocab
    except (ImportError, NotImplementedError, AttributeError):
        sys.path.insert(0, str(ROOT / "tests"))
        from fixtures.simple_vocab import vocab_from_file

        return vocab_from_file(path)


def corpus(mb: float) -> bytes:
    """Project docs plus llama.cpp's multilingual test strings, repeated to ``mb`` MB."""
    parts = [p.read_bytes() for p in sorted(ROOT.glob("*.md"))]
    inp = ASSET.with_name(ASSET.name + ".inp")
    if inp.is_file():
        parts.append(inp.read_bytes().replace(b"__ggml_vocab_test__", b""))
    base = b"\n".join(parts) or b"The quick brown fox jumps over the lazy dog. "
    reps = int(mb * 1e6 // len(base)) + 1
    return (base * reps)[: int(mb * 1e6)]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks wpm")
    ap.add_argument("--file", type=Path, help="text to encode (default: built-in corpus)")
    ap.add_argument("--mb", type=float, default=2.0, help="size of the built-in corpus")
    ap.add_argument("--llama-mbps", type=float, default=LLAMA_MBPS)
    args = ap.parse_args(argv)

    from tui_tok.tokenizer.wpm import WpmEncoder

    data = args.file.read_bytes() if args.file else corpus(args.mb)
    size = len(data) / 1e6
    vocab = load_vocab(ASSET)

    t0 = time.perf_counter()
    enc = WpmEncoder(vocab)
    enc.encode_fragment(b"warm up tables", after_special=True)
    t_build = time.perf_counter() - t0

    def run() -> tuple[float, int]:
        t = time.perf_counter()
        n = len(enc.encode_fragment(data, after_special=True))
        return time.perf_counter() - t, n

    enc._cache.clear()
    t_cold, n_tokens = run()
    t_warm = min(run()[0] for _ in range(3))
    print(f"corpus: {size:.2f} MB, {n_tokens} tokens, {len(enc._cache)} distinct words")
    print(f"table build (class table, prefix table): {t_build:.2f} s")
    for label, t in (("cold word cache", t_cold), ("warm word cache", t_warm)):
        mbps = size / t
        print(f"{label}: {t:.3f} s = {mbps:.2f} MB/s = {mbps / args.llama_mbps:.2f}x llama.cpp ({args.llama_mbps} MB/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
