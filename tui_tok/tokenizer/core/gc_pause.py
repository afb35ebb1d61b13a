"""Pause Python's cyclic garbage collector while a long input is encoded.

Encoding 0.5 MB of text makes ~100k new tuples, lists and cache entries that all survive and hold
no cycles, yet their count triggers full collections of the whole heap (tens of ms each, landing
in the middle of an encode). Short inputs keep the collector running: pausing costs nothing they
would gain. Leaves out pacing collections between frames: the UI does that (``ui/gc_pacing.py``).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

GC_PAUSE_FROM = 1 << 16
"""Input bytes from which the collector is paused."""


@contextmanager
def gc_paused(n_bytes: int) -> Iterator[None]:
    """Disable the collector for the block when ``n_bytes > GC_PAUSE_FROM`` and it is enabled
    (a caller that already paused it keeps it paused; it is re-enabled only by who disabled it).

    >>> with gc_paused(1 << 20):
    ...     gc.isenabled()
    False
    """
    paused = n_bytes > GC_PAUSE_FROM and gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
