"""A one-line progress readout on stderr while a remote header arrives (only on a terminal)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tui_tok.gguf.source import Progress


@contextmanager
def stderr_progress(label: str = "reading the header") -> Iterator[Progress | None]:
    """Yields a progress callback drawing ``label: 3.2 MB`` at most 10 times a second (None when
    stderr is not a terminal); the line is erased when done."""
    if not sys.stderr.isatty():
        yield None
        return
    last = [0.0, False]

    def show(n: int, total: int | None) -> None:
        now = time.monotonic()
        if now - last[0] < 0.1:
            return
        last[0], last[1] = now, True
        of = f" of a {total / 1e9:.1f} GB file" if total else ""
        sys.stderr.write(f"\r{label}: {n / 1e6:.1f} MB{of}\x1b[K")
        sys.stderr.flush()

    try:
        yield show
    finally:
        if last[1]:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
