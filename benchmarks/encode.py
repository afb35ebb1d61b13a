"""Encode speed per vocab on the ~0.5 MB mixed corpus (``corpus.py``), against the targets.

For every vocab file that loads (all families): cold MB/s (a fresh tokenizer, empty caches and
tables, the median of ``--repeat`` runs, each on a newly loaded tokenizer) and warm MB/s (the same
text again), with ``add_special=False, parse_special=False``, and warm ``tokenize`` MB/s (ids,
spans and ``Token`` objects). Targets (issue 3): BPE >= 2 MB/s, SPM >= 1.2 MB/s, judged on the
measured cold figure. A calibration line says how fast the machine is right now (it varies a lot
on a shared machine: ``python -m benchmarks llama_peer`` runs llama.cpp's own code beside ours).

    python -m benchmarks encode [--size MB] [--repeat N] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.corpus import build_corpus  # noqa: E402
from support import vocab_files  # noqa: E402

TARGETS = {"bpe": 2.0, "spm": 1.2}


def calibration_ms() -> float:
    """Best of 5 of ``sum(range(10**6))``: ~12-15 ms on an idle recent x86 core."""
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        sum(range(10**6))
        best = min(best, time.perf_counter() - t)
    return 1000 * best


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks encode", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=0.5, help="corpus size in MB (default 0.5)")
    parser.add_argument("--only", nargs="*", default=None, help="vocab names (default: all)")
    parser.add_argument("--repeat", type=int, default=3, help="cold runs per vocab (median; default 3)")
    args = parser.parse_args(argv)

    from tui_tok.errors import TuiTokError
    from tui_tok.loader import load_tokenizer

    data = build_corpus(int(args.size * 1_000_000)).encode()
    mb = len(data) / 1e6
    calib = calibration_ms()
    print(f"corpus {mb:.3f} MB; calibration sum(range(10**6)) = {calib:.1f} ms; cold = median of {args.repeat}")
    print(f"{'vocab':28s} {'family':6s} {'tokens':>8s} {'cold MB/s':>10s} {'warm MB/s':>10s} {'tokenize':>9s}  target")
    for vf in vocab_files():
        if args.only and vf.name not in args.only:
            continue
        try:
            colds = []
            for _ in range(max(args.repeat, 1)):
                tok = load_tokenizer(vf.path)
                t0 = time.perf_counter()
                ids = tok.encode(data, add_special=False)
                colds.append(time.perf_counter() - t0)
            t1 = time.perf_counter()
            tok.encode(data, add_special=False)
            t2 = time.perf_counter()
            tok.tokenize(data, add_special=False)
            t3 = time.perf_counter()
        except TuiTokError as exc:
            print(f"{vf.name:28s} cannot encode: {exc}")
            continue
        family = tok.vocab.type.value
        target = TARGETS.get(family)
        cold = mb / statistics.median(colds)
        verdict = "" if target is None else f">= {target} {'ok' if cold >= target else 'SLOW'}"
        print(
            f"{vf.name:28s} {family:6s} {len(ids):8d} {cold:10.2f} {mb / (t2 - t1):10.2f} {mb / (t3 - t2):9.2f}  {verdict}"
        )
    print(f"calibration after: {calibration_ms():.1f} ms")
    return 0
