"""How fast tui-tok reads GGUF metadata, against gguf-py's GGUFReader.

For each vocab in ../shared (and assets/): our ``read_gguf`` (best of N, wall and CPU
time), a whole ``tui-tok info`` process (best of 3, wall), and, when the ``gguf``
package is installed, ``GGUFReader(path)`` plus ``.contents()`` of the token and merge
lists, run once (10-60 s on the big vocabs; ``--quick`` skips it for files > 5 MB).

    python -m benchmarks gguf [--quick] [--repeat N] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support import vocab_files  # noqa: E402
from tui_tok.gguf import read_gguf  # noqa: E402

QUICK_LIMIT = 5 * 1024 * 1024


def best_of(n: int, fn: Callable[[], object]) -> tuple[float, float]:
    """(best wall time, CPU time of that run) in seconds."""
    runs = []
    for _ in range(n):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        runs.append((time.perf_counter() - w0, time.process_time() - c0))
    return min(runs)


def info_process(path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "tui_tok", "info", str(path)], capture_output=True, cwd=ROOT)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.decode(errors="replace"))


def gguf_py(path: Path) -> None:
    import gguf

    reader = gguf.GGUFReader(str(path))
    for key in ("tokenizer.ggml.tokens", "tokenizer.ggml.merges"):
        field = reader.fields.get(key)
        if field is not None:
            field.contents()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks gguf", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip gguf-py on files over 5 MB")
    ap.add_argument("--no-peer", action="store_true", help="skip gguf-py entirely")
    ap.add_argument("--repeat", type=int, default=5, help="runs of read_gguf per file (best is kept)")
    ap.add_argument("--only", nargs="*", default=None, help="vocab names to run (default: all)")
    args = ap.parse_args(argv)
    try:
        import gguf  # noqa: F401

        have_peer = not args.no_peer
    except ImportError:
        have_peer = False
        print("gguf (gguf-py) is not installed: peer column skipped (pip install -e '.[bench]')")

    vocabs = [v for v in vocab_files() if args.only is None or v.name in args.only]
    header = f"{'vocab':<28} {'size':>8} {'strings':>9} {'read ms':>8} {'cpu ms':>7} {'info ms':>8} {'gguf-py s':>9} {'speed-up':>8}"
    print(header)
    print("-" * len(header))
    speedups = []
    for v in vocabs:
        size = v.path.stat().st_size
        f = read_gguf(v.path)
        n_strings = sum(len(f.get(k) or ()) for k in ("tokenizer.ggml.tokens", "tokenizer.ggml.merges"))
        wall, cpu = best_of(args.repeat, partial(read_gguf, v.path))
        info_wall, _ = best_of(3, partial(info_process, v.path))
        peer = "-"
        speed = "-"
        if have_peer and not (args.quick and size > QUICK_LIMIT):
            peer_wall, _ = best_of(1, partial(gguf_py, v.path))
            peer = f"{peer_wall:9.2f}"
            speedups.append(peer_wall / wall)
            speed = f"{peer_wall / wall:7.0f}x"
        print(
            f"{v.name:<28} {size / 2**20:7.1f}M {n_strings:>9} {wall * 1000:8.1f} {cpu * 1000:7.1f} "
            f"{info_wall * 1000:8.0f} {peer:>9} {speed:>8}",
            flush=True,
        )
    if speedups:
        print(f"\nspeed-up over gguf-py: median {statistics.median(speedups):.0f}x, min {min(speedups):.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
