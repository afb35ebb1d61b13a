"""Open -> ready-to-encode time per vocab: a whole ``python -c`` process that loads and encodes "hi".

Best of N wall-clock runs (default 3) after one warm-up (bytecode caches on), next to a bare
``python -c "import numpy, tui_tok"`` baseline and a calibration figure for machine load.
Targets: qwen2 <= 0.4 s, gemma-4 <= 1.0 s (whole process).

    python -m benchmarks load [--repeat N] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support import vocab_files  # noqa: E402

TARGETS = {"qwen2": 0.4, "gemma-4": 1.0}
SCRIPT = "import sys; from tui_tok.loader import load_tokenizer; load_tokenizer(sys.argv[1]).encode('hi')"


# bytecode caching on (as for an installed package): a set PYTHONDONTWRITEBYTECODE would make every
# run recompile every module; one untimed warm-up run writes the caches
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def best_of(cmd: list[str], repeat: int) -> tuple[float, str]:
    best, err = float("inf"), ""
    subprocess.run(cmd, capture_output=True, cwd=ROOT, env=ENV)
    for _ in range(repeat):
        t = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=ENV)
        elapsed = time.perf_counter() - t
        if proc.returncode != 0:
            return float("nan"), (proc.stderr.strip().splitlines() or ["failed"])[-1]
        best = min(best, elapsed)
    return best, err


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks load", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, help="vocab names (default: all)")
    args = parser.parse_args(argv)
    from benchmarks.encode import calibration_ms

    print(f"calibration sum(range(10**6)) = {calibration_ms():.1f} ms (how fast the machine is right now)")
    base, _ = best_of([sys.executable, "-c", "import numpy, tui_tok"], args.repeat)
    print(f"baseline python -c 'import numpy, tui_tok': {base:.3f} s")
    print(f"{'vocab':28s} {'seconds':>8s}  target")
    for vf in vocab_files():
        if args.only and vf.name not in args.only:
            continue
        secs, err = best_of([sys.executable, "-c", SCRIPT, str(vf.path)], args.repeat)
        target = TARGETS.get(vf.name)
        verdict = "" if target is None else f"<= {target} {'ok' if secs <= target else 'SLOW'}"
        print(f"{vf.name:28s} {secs:8.3f}  {verdict}{'  ' + err if err else ''}")
    return 0
