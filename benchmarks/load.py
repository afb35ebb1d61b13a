"""Open -> ready-to-encode time per vocab: a whole ``python -c`` process that loads and encodes "hi".

Median (and min) of N wall-clock runs (default 5) after one warm-up per command (bytecode caches
on), the commands taking turns round by round so machine load hits them alike. Beside them: a bare
``python -c "import tui_tok, numpy"`` floor (the interpreter and numpy as tui_tok imports them) and
a calibration figure for machine load. Targets: qwen2 <= 0.4 s, gemma-4 <= 1.0 s (whole process).

    python -m benchmarks load [--repeat N] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support import vocab_files  # noqa: E402

TARGETS = {"qwen2": 0.4, "gemma-4": 1.0}
SCRIPT = "import sys; from tui_tok.loader import load_tokenizer; load_tokenizer(sys.argv[1]).encode('hi')"
FLOOR = "import tui_tok, numpy"


# bytecode caching on (as for an installed package): a set PYTHONDONTWRITEBYTECODE would make every
# run recompile every module; one untimed warm-up run writes the caches. OPENBLAS_NUM_THREADS is
# dropped as a user's shell would not have it: importing tui_tok in this process may have set it,
# and the child's own import of tui_tok must decide again.
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "OPENBLAS_NUM_THREADS")}


def run_once(cmd: list[str]) -> tuple[float, str]:
    """Wall-clock seconds of one run, and the last stderr line if it failed."""
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=ENV)
    elapsed = time.perf_counter() - t
    if proc.returncode != 0:
        return float("nan"), (proc.stderr.strip().splitlines() or ["failed"])[-1]
    return elapsed, ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks load", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=None, help="vocab names (default: all)")
    args = parser.parse_args(argv)
    from benchmarks.encode import calibration_ms

    print(f"calibration sum(range(10**6)) = {calibration_ms():.1f} ms (how fast the machine is right now)")
    cmds: dict[str, list[str]] = {"floor": [sys.executable, "-c", FLOOR]}
    for vf in vocab_files():
        if not args.only or vf.name in args.only:
            cmds[vf.name] = [sys.executable, "-c", SCRIPT, str(vf.path)]
    times: dict[str, list[float]] = {name: [] for name in cmds}
    errors: dict[str, str] = {}
    for cmd in cmds.values():
        subprocess.run(cmd, capture_output=True, cwd=ROOT, env=ENV)
    for _ in range(args.repeat):
        for name, cmd in cmds.items():
            if name in errors:
                continue
            secs, err = run_once(cmd)
            if err:
                errors[name] = err
            times[name].append(secs)
    floor = times.pop("floor")
    print(f"floor python -c '{FLOOR}': median {statistics.median(floor):.3f} s, min {min(floor):.3f} s")
    print(f"{'vocab':28s} {'median':>8s} {'min':>8s}  target")
    for name, xs in times.items():
        med = statistics.median(xs)
        target = TARGETS.get(name)
        verdict = "" if target is None else f"<= {target} {'ok' if med <= target else 'SLOW'}"
        err = f"  {errors[name]}" if name in errors else ""
        print(f"{name:28s} {med:8.3f} {min(xs):8.3f}  {verdict}{err}")
    return 0
