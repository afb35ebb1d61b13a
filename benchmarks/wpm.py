"""WPM (BERT) encoder throughput vs llama.cpp: ``python -m benchmarks wpm [--file F] [--mb N] [--rwkv]``.

Prints MB/s for: the one-off table builds, a cold word cache (every distinct word encoded
once) and a warm one (with spans as ``encode_fragment`` pieces; as ``tokenize_arrays``' columns, what the explorer asks;
and ids only, as ``encode`` asks), and the ratio to llama.cpp's WPM speed. That speed is measured with
llama.cpp's own WPM code when the test oracle is built (``python tests/fixtures/llama_oracle.py``,
compiled -O2 like a release build), else taken as ~8 MB/s (``--llama-mbps``). ``--rwkv`` does the same for the RWKV encoder.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSET = ROOT / "assets" / "ggml-vocab-bert-bge.gguf"
LLAMA_MBPS = {"wpm": 8.0, "rwkv": 15.0}  # rough single-thread figures when the oracle is not built


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


def measure_llama(model: str, vocab, data: bytes) -> float | None:  # type: ignore[no-untyped-def]
    """MB/s of llama.cpp's own tokenizer code (the test oracle), tokenize call only; None if not built."""
    import subprocess
    import tempfile

    sys.path.insert(0, str(ROOT / "tests"))
    from fixtures import llama_oracle

    if not llama_oracle.available():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        vocab_path = llama_oracle.write_vocab_file(vocab, Path(tmp) / "vocab")
        res = subprocess.run(
            [str(llama_oracle.BINARY), model, str(vocab_path)],
            input=(data.hex() + "\n") * 3,
            capture_output=True,
            text=True,
            check=True,
        )
    times = [float(line.split()[1]) for line in res.stderr.splitlines() if line.startswith("TIME ")]
    if not times:
        return None
    print(f"  llama.cpp {model} code (oracle, -O2, tokenize call only): best {min(times):.3f} s")
    return len(data) / 1e6 / min(times)


def bench(label: str, model: str, asset: Path, encoder_cls, data: bytes, llama_mbps: float | None) -> None:  # type: ignore[no-untyped-def]
    size = len(data) / 1e6
    vocab = load_vocab(asset)
    t0 = time.perf_counter()
    enc = encoder_cls(vocab)
    enc.encode_fragment(b"warm up tables", after_special=True)
    t_build = time.perf_counter() - t0

    def run(method: str = "encode_fragment") -> tuple[float, int]:
        t = time.perf_counter()
        kwargs = {} if method == "encode_fragment_arrays" else {"after_special": True}
        n = len(getattr(enc, method)(data, **kwargs))
        return time.perf_counter() - t, n

    print(f"{label} ({asset.name}):")
    ref = llama_mbps or measure_llama(model, vocab, data) or LLAMA_MBPS.get(model, 8.0)
    cache = getattr(enc, "_cache", {})  # WPM's words of short texts; RWKV has none
    cache.clear()
    t_cold, n_tokens = run()
    t_warm = min(run()[0] for _ in range(3))
    print(f"  corpus {size:.2f} MB -> {n_tokens} tokens; {len(cache)} distinct cached chunks")
    print(f"  table build (first call): {t_build:.2f} s")
    timings = [("cold cache", t_cold), ("warm cache", t_warm)]
    if hasattr(enc, "encode_fragment_arrays"):  # what Tokenizer.tokenize_arrays uses (spans as columns)
        cache.clear()
        timings.append(("spans as arrays (tokenize_arrays), cold cache", run("encode_fragment_arrays")[0]))
    if hasattr(enc, "encode_fragment_ids"):  # what Tokenizer.encode uses (no spans)
        cache.clear()
        timings.append(("ids only, cold cache", run("encode_fragment_ids")[0]))
        timings.append(("ids only, warm cache", min(run("encode_fragment_ids")[0] for _ in range(3))))
    for what, t in timings:
        mbps = size / t
        print(f"  {what}: {t:.3f} s = {mbps:.2f} MB/s = {mbps / ref:.2f}x llama.cpp ({ref:.2f} MB/s)")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks wpm")
    ap.add_argument("--file", type=Path, help="text to encode (default: built-in corpus)")
    ap.add_argument("--mb", type=float, default=2.0, help="size of the built-in corpus")
    ap.add_argument(
        "--llama-mbps", type=float, default=None, help="llama.cpp speed to compare with (default: measured)"
    )
    ap.add_argument("--rwkv", action="store_true", help="also time the RWKV encoder (rwkv-world)")
    args = ap.parse_args(argv)

    from tui_tok.tokenizer.rwkv.encoder import RwkvEncoder
    from tui_tok.tokenizer.wpm.encoder import WpmEncoder

    data = args.file.read_bytes() if args.file else corpus(args.mb)
    bench("WPM", "wpm", ASSET, WpmEncoder, data, args.llama_mbps)
    if args.rwkv:
        bench("RWKV", "rwkv", ROOT / "assets" / "rwkv-world-vocab.gguf", RwkvEncoder, data, args.llama_mbps)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
