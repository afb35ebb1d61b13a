"""Time ``explain`` on one chunk of about 1 KB (issue 15: under 50 ms on gemma-4).

``python -m benchmarks explain [MODEL] [--size BYTES] [--repeat N]``; MODEL defaults to
``../shared/vocabs/ggml-vocab-gemma-4.gguf``. The text is prose without newlines, so gemma-4's
pre-tokenizer (newline runs) leaves it one chunk: one merge trace of ~1000 symbols. Tables
(merge ranks, encoder caches) are built by a first, untimed call on another text, as the
explorer has them by the time a token is explained. Prints the best and median of the runs.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "vocabs" / "ggml-vocab-gemma-4.gguf"
PROSE = ("The quick brown fox jumps over the lazy dog while tokenizers split text into pieces, "
         "and every merge has a rank that decides which pair joins first. ")  # fmt: skip


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks explain", description=__doc__.splitlines()[0])
    p.add_argument("model", nargs="?", default=str(DEFAULT), help="GGUF file (default: gemma-4 in ../shared)")
    p.add_argument("--size", type=int, default=1024, help="chunk size in bytes (default 1024)")
    p.add_argument("--repeat", type=int, default=20, help="timed runs (default 20)")
    args = p.parse_args(argv)

    from tui_tok.loader import load_tokenizer
    from tui_tok.tokenizer.explain import explain

    tok = load_tokenizer(args.model)
    text = (PROSE * (args.size // len(PROSE) + 1))[: args.size]
    explain(tok, text[::-1])  # builds the rank table and the encoder's tables, untimed
    times = []
    for _ in range(max(args.repeat, 1)):
        t0 = time.perf_counter()
        expl = explain(tok, text)
        times.append(time.perf_counter() - t0)
    chunks = [c for f in expl.fragments for c in f.chunks]
    steps = sum(len(c.steps) for c in chunks)
    print(f"{Path(args.model).name}: explain {len(text.encode())} bytes -> {len(chunks)} chunk(s), {steps} steps, "
          f"{len(expl.ids)} tokens: best {min(times) * 1000:.1f} ms, median {statistics.median(times) * 1000:.1f} ms")  # fmt: skip
    return 0
