"""Keystrokes on a long text, per family, in the tokenize view's engine (no widgets):
``python -m benchmarks cut_keys [GGUF ...] [--size BYTES] [--keys N]``.

For each vocab: the text (``PROSE`` repeated to ``--size`` bytes, default 500 KB) is tokenized
once, then ``--keys`` characters are typed at spread-out places. Each key is timed as the exact
layout of the new text, twice: ``full`` with splicing off (what SPM, UGM, WPM and RWKV did before
``explore/cut_edit.py``: the whole text re-tokenized) and ``cut`` (re-encoding only between the
proven cuts around the key). Prints ms per key (p50 / max) and whether every result was spliced.
Defaults: phi-3 (SPM), bert-bge (WPM), rwkv-world, t5 (UGM) from assets/, gemma3 (SPM) and gemma-4
(BPE, newline-run pre-tokenizer) from ../shared.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = [
    ROOT / "assets" / "ggml-vocab-phi-3.gguf",
    ROOT.parent / "shared" / "data" / "gemma3-270m-vocab.gguf",
    ROOT.parent / "shared" / "vocabs" / "ggml-vocab-gemma-4.gguf",
    ROOT / "assets" / "ggml-vocab-bert-bge.gguf",
    ROOT / "assets" / "rwkv-world-vocab.gguf",
    ROOT / "assets" / "t5-botchan-en-unigram-1000.gguf",
]
PROSE = (
    "The tokenizer explorer shows every token of a text as you type. Typing one key must not re-read "
    "half a megabyte: only the stretch between two proven cuts around it is encoded again.\n"
    "def main(argv: list[str]) -> int:  # code, too\n    return len(argv) * 2\n"
    "Mixed scripts: naïve café, Ж, 日本語のテキスト, emoji 🙂 and numbers 12345.\n\n"
)


def _keys(path: Path, size: int, n: int) -> None:
    from tui_tok.explore.tokenize_engine import TokenizeEngine, TokenizeRequest
    from tui_tok.loader import load_tokenizer

    tok = load_tokenizer(path)
    text = (PROSE * (size // len(PROSE.encode()) + 1))[:size]
    results = {}
    for mode in ("full", "cut"):
        engine = TokenizeEngine()

        def req(g: int, t: str) -> TokenizeRequest:
            return TokenizeRequest(generation=g, text=t, add_special=True, parse_special=False, show_pieces=False)

        t0 = time.perf_counter()
        engine.layout(tok, req(0, text))
        first = time.perf_counter() - t0
        if mode == "full":
            engine._planner.plan = lambda *a, **k: None  # type: ignore[method-assign]  # splicing off
        current, times = text, []
        for i in range(n):
            at = (i * 7919 * 61) % len(current)
            current = current[:at] + "x" + current[at:]
            t0 = time.perf_counter()
            got = engine.layout(tok, req(i + 1, current))
            times.append((time.perf_counter() - t0) * 1000)
            assert got is not None
        check = tok.tokenize_arrays(current, add_special=True)[0]
        assert got is not None and got[0].ids.tolist() == check.tolist(), "spliced result differs from the whole text's"
        results[mode] = (first, times, engine.spliced)
    print(f"{path.name} ({tok.vocab.type.name}), {len(text.encode()) / 1000:.0f} KB, {n} keys:")
    for mode, (first, times, spliced) in results.items():
        print(
            f"  {mode:4}: first tokenize {first * 1000:.0f} ms; per key p50 {statistics.median(times):.1f} ms, "
            f"max {max(times):.1f} ms; spliced {spliced}/{n}"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks cut_keys", description=__doc__.splitlines()[0])
    parser.add_argument("gguf", nargs="*", type=Path)
    parser.add_argument("--size", type=int, default=500_000, help="bytes of text (default 500000)")
    parser.add_argument("--keys", type=int, default=20, help="keys typed (default 20)")
    args = parser.parse_args(argv)
    for path in args.gguf or [p for p in DEFAULTS if p.is_file()]:
        _keys(path, args.size, args.keys)
    return 0
