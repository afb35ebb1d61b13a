"""Lint time per vocab: read the file, then ``lint_gguf`` (which builds the tokenizer for the template
and reachability checks), in this process, fresh each round (the template compile cache is cleared).

Median and min of N rounds (default 5) after one warm-up, with the split between reading and linting
and the findings' summary. Target: gemma-4 (262k tokens, 515k merges) under 2 s, read included.

    python -m benchmarks lint [--repeat N] [--only NAME ...]    (default: gemma-4 and qwen2)
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support import vocab_files  # noqa: E402

TARGETS = {"gemma-4": 2.0}
DEFAULT = ("gemma-4", "qwen2")


def one_round(path: Path) -> tuple[float, float, str]:
    """(read seconds, lint seconds, summary) of one fresh read + lint."""
    from tui_tok.explore.chat.render import compile_template
    from tui_tok.explore.lint import lint_gguf
    from tui_tok.gguf import read_gguf

    compile_template.cache_clear()
    gc.collect()
    t0 = time.perf_counter()
    gguf = read_gguf(path, texts=("tokenizer.ggml.merges",))
    t1 = time.perf_counter()
    report = lint_gguf(gguf)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, report.summary()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks lint", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=None, help=f"vocab names (default: {', '.join(DEFAULT)})")
    args = parser.parse_args(argv)
    from benchmarks.encode import calibration_ms

    print(f"calibration sum(range(10**6)) = {calibration_ms():.1f} ms (how fast the machine is right now)")
    wanted = args.only or DEFAULT
    files = [vf for vf in vocab_files() if vf.name in wanted]
    if not files:
        print(f"none of {', '.join(wanted)} found (../shared missing?)", file=sys.stderr)
        return 1
    for vf in files:
        one_round(vf.path)  # warm-up: imports, bytecode
        rounds = [one_round(vf.path) for _ in range(args.repeat)]
        totals = [r + lt for r, lt, _ in rounds]
        read = statistics.median(r for r, _, _ in rounds)
        lint = statistics.median(lt for _, lt, _ in rounds)
        target = TARGETS.get(vf.name)
        verdict = (
            ""
            if target is None
            else f"  target {target:.1f} s: {'ok' if statistics.median(totals) < target else 'MISSED'}"
        )
        print(f"{vf.name:<20} total median {statistics.median(totals):.3f} s (min {min(totals):.3f}) = "
              f"read {read:.3f} + lint {lint:.3f}  [{rounds[0][2]}]{verdict}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
