"""``tui-tok fix`` on a big model: ``python -m benchmarks fix [--size-gb 10] [--no-dense] [--keep]``.

Builds a model in a temporary directory under /tmp: the Qwen3 vocabulary's metadata with
``tokenizer.ggml.pre`` set to 'default' (so ``fix`` has a finding to repair) and Q8_0 tensors of
``--size-gb`` GB in all, sparse (the file is truncated to its size; every tensor's first MB is
random bytes). Then, each in a fresh process, with wall time, throughput over the tensor data and
peak RSS (``wait4``):

- ``tui-tok fix MODEL -o OUT`` as a user runs it (lint, plan, copy, lint of the copy): holes are
  skipped, so the copy is as sparse as the input;
- the same copy with every byte read and written (``sparse=False``: the holes read as zeros), next to
  ``cp --sparse=never`` of the same file: the disk's own speed for those bytes.

Target (issue 31): the dense copy within 1.5x of ``cp``'s time (the mean of the ``cp`` before and
after it), peak RSS under 500 MB whatever the size. Everything it wrote is deleted at the end (``--keep`` keeps it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROW = 4096  # Q8_0 elements a row: 128 blocks of 34 bytes
_DENSE = ("import sys; from tui_tok.gguf import read_gguf, GGUFValue, GGUFValueType as T; "
          "from tui_tok.gguf.rewrite import rewrite_gguf; "
          "rewrite_gguf(read_gguf(sys.argv[1]), sys.argv[2], {'tokenizer.ggml.pre': GGUFValue(T.STRING, 'qwen2')}, "
          "sparse=False)")  # fmt: skip


def make_model(path: Path, size_gb: float) -> int:
    """Write the sparse model; returns its tensor data size."""
    import numpy as np

    from tui_tok.gguf import read_gguf, write_gguf

    meta = read_gguf(ROOT / "assets" / "qwen3-vocab.gguf").metadata
    meta["tokenizer.ggml.pre"] = "default"
    row_bytes = ROW // 32 * 34
    rows_total = max(1, int(size_gb * 1e9) // row_bytes)
    per_tensor = max(1, min(rows_total, 2**30 // row_bytes))  # tensors of about 1 GB
    tensors = []
    left = rows_total
    while left > 0:
        n = min(per_tensor, left)
        tensors.append((f"blk.{len(tensors)}.ffn_up.weight", (ROW, n), 8))
        left -= n
    write_gguf(path, meta, tensors=tensors)
    g = read_gguf(path)
    rng = np.random.default_rng(0)
    fd = os.open(path, os.O_WRONLY)
    try:
        for t in g.tensors:
            os.pwrite(fd, rng.bytes(min(t.nbytes or 0, 1 << 20)), g.data_offset + t.offset)
    finally:
        os.close(fd)
    return g.file_size - g.data_offset


_LAUNCH = ("import os, subprocess, sys, time; t = time.perf_counter(); p = subprocess.Popen(sys.argv[1:], "
           "stdout=subprocess.DEVNULL); _, st, ru = os.wait4(p.pid, 0); "
           "print(os.waitstatus_to_exitcode(st), time.perf_counter() - t, ru.ru_maxrss)")  # fmt: skip
"""Runs the command from a bare interpreter: a child's peak RSS counts what it inherited at fork, so
the benchmark's own memory (numpy, the model it built) must not be its parent's."""


def timed(argv: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of a child process."""
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", _LAUNCH, *argv], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    code, seconds, rss_kb = proc.stdout.split()
    if int(code) != 0:
        raise SystemExit(f"{' '.join(argv[:4])} failed: {proc.stderr[-500:]}")
    return float(seconds), int(rss_kb) / 1024


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks fix", description=__doc__.splitlines()[0])
    parser.add_argument("--size-gb", type=float, default=10.0, help="tensor data of the model (default 10)")
    parser.add_argument("--no-dense", action="store_true", help="skip the copy of every byte and cp")
    parser.add_argument("--keep", action="store_true", help="keep the files written (printed)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="tui-tok-bench-fix-", dir="/tmp"))
    try:
        model = work / "model.gguf"
        data = make_model(model, args.size_gb)
        used = os.stat(model).st_blocks * 512
        print(
            f"model: {model.stat().st_size / 1e9:.2f} GB ({data / 1e9:.2f} GB tensor data, {used / 1e6:.0f} MB on disk)"
        )
        rows = [("tui-tok fix (holes skipped)", [sys.executable, "-m", "tui_tok", "fix", str(model), "-o",
                                                 str(work / "fixed.gguf")])]  # fmt: skip
        if not args.no_dense:  # cp before and after: the disk's speed drifts on a shared machine
            cp = ("cp --sparse=never (the disk)", ["cp", "--sparse=never", str(model), str(work / "cp.gguf")])
            rows += [cp, ("copy of every byte (sparse=False)", [sys.executable, "-c", _DENSE, str(model),
                                                                str(work / "dense.gguf")]), cp]  # fmt: skip
        for label, cmd in rows:
            seconds, rss = timed(cmd)
            print(f"{label:<36} {seconds:7.2f} s  {data / 1e6 / seconds:9.0f} MB/s of tensor data  "
                  f"peak RSS {rss:6.0f} MB")  # fmt: skip
            for name in ("dense.gguf", "cp.gguf"):  # free the disk before the next row
                if not args.keep and (work / name).exists():
                    (work / name).unlink()
        if args.keep:
            print(f"kept: {work}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
