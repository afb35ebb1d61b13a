"""``reuse_freed_memory``: large blocks come from the heap and are reused, not mapped afresh;
``warm_for_next_key``: the first key after a long text is laid out finds mapped pages too.

glibc's ``malloc`` serves every block over its mmap threshold (at most 32 MB) with fresh pages
from the kernel and unmaps them on ``free``. With a 10 MB text the explorer makes such blocks on
every key: the edited text (a 9M-character ``str`` with one emoji is 36 MB), its UTF-8 bytes,
the layout's columns. Each fresh page is a page fault: measured on the project's VM, splicing
one character into that ``str`` took ~100 ms, of which ~90 were faults; with the blocks taken
from the heap (where the last key's freed blocks are reused) ~10 ms. ``mallopt``
(``M_MMAP_THRESHOLD``, ``M_TRIM_THRESHOLD``, ``M_ARENA_MAX``; glibc's ``malloc/malloc.c``) sets
them for this process. Elsewhere (another libc, no ``mallopt``) nothing changes.

One arena for every thread (``M_ARENA_MAX``): the tokenize view's workers make a key's new
columns, the UI thread drops the old ones. With an arena per thread, blocks freed in one arena
were not reused by the next key's worker in another, and an arena's heap (a 64 MB mapping) was
given back whole and mapped afresh: every other key of a 10 MB text faulted in ~60 MB (0.05-0.2 s
of system time), and the peak RSS rose with them (``python -m benchmarks big_text``). Threads
take turns at the interpreter lock anyway, so they hardly ever wait for the one arena.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

import numpy as np

from tui_tok.explore.layout import TokenLayout

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
ARENAS = 1
MMAP_FROM = 1 << 30
"""Blocks from 1 GB are still mapped (the default: from 128 KB, rising with use to 32 MB)."""
TRIM_FROM = 256 << 20
"""Free memory at the heap's top is given back once it exceeds 256 MB (default 128 KB): a key in a
10 MB text frees ~150 MB of old columns and text, which the next key takes again. (With an arena
per thread, 256 MB raised the peak RSS by ~190 MB over mapped blocks; with one arena the freed
blocks are reused and the peak fell, 10 MB of text, Qwen3: ~655 MB -> ~580 MB.)"""


_REUSING = False
"""Whether ``reuse_freed_memory`` took effect (freed blocks stay in the heap)."""


def reuse_freed_memory() -> bool:
    """Set the thresholds (module doc); True when the C library took them."""
    global _REUSING
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    _REUSING = (
        bool(mallopt(M_ARENA_MAX, ARENAS))
        and bool(mallopt(M_MMAP_THRESHOLD, MMAP_FROM))
        and bool(mallopt(M_TRIM_THRESHOLD, TRIM_FROM))
    )
    return _REUSING


_WARM = [0]
"""Bytes ``warm_again`` touches once (set by ``warm_for_next_key``)."""


def warm_for_next_key(layout: TokenLayout) -> None:
    """Touch and free as much heap as a key in ``layout``'s text allocates for its new columns, so
    that the first key finds those pages mapped. The whole-text layout's own temporaries had been
    taken by other blocks: the first key in a 10 MB t5 text spent ~50 ms of its ~70 in page
    faults, the second ~35 (15 ms each after; with this, ~23 and ~15-20). Only where freed
    blocks stay in the heap (``reuse_freed_memory``)."""
    columns = (layout.ids, layout.starts, layout.ends, layout.kinds, layout.phases, layout.line_starts)
    _WARM[0] = min(sum(c.nbytes for c in columns), TRIM_FROM // 2)
    _touch(_WARM[0])


def warm_again() -> None:
    """``warm_for_next_key`` of the last long text once more, once: the background builds (index,
    lint) take freed blocks too, and the key after them faulted its columns in again (10 MB,
    Gemma 3: 63 ms of splice, 15-30 ms after the other keys). Nothing when no long text was laid
    out since the last call (a model switched to with a short text warms nothing)."""
    size, _WARM[0] = _WARM[0], 0
    _touch(size)


def _touch(size: int) -> None:
    if _REUSING and size:
        block = np.ones(size, dtype=np.uint8)  # written: every page mapped
        del block
