"""``reuse_freed_memory``: large blocks come from the heap and are reused, not mapped afresh.

glibc's ``malloc`` serves every block over its mmap threshold (at most 32 MB) with fresh pages
from the kernel and unmaps them on ``free``. With a 10 MB text the explorer makes such blocks on
every key: the edited text (a 9M-character ``str`` with one emoji is 36 MB), its UTF-8 bytes,
the layout's columns. Each fresh page is a page fault: measured on the project's VM, splicing
one character into that ``str`` took ~100 ms, of which ~90 were faults; with the blocks taken
from the heap (where the last key's freed blocks are reused) ~10 ms. ``mallopt``
(``M_MMAP_THRESHOLD``, ``M_TRIM_THRESHOLD``; glibc's ``malloc/malloc.c``) sets both thresholds
for this process. Elsewhere (another libc, no ``mallopt``) nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_FROM = 1 << 30
"""Blocks from 1 GB are still mapped (the default: from 128 KB, rising with use to 32 MB)."""
TRIM_FROM = 32 << 20
"""Free memory at the heap's top is given back once it exceeds 32 MB (default 128 KB): with 256 MB
the peak RSS of a 10 MB text rose by ~190 MB over mapped blocks, with 32 MB by ~100 MB."""


def reuse_freed_memory() -> bool:
    """Set the thresholds (module doc); True when the C library took them."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_FROM)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_FROM))
