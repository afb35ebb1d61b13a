"""Distinct values of an integer array, sorted: ``np.unique`` without its slow path.

numpy 2.3+ answers a plain ``np.unique(a)`` (no ``return_inverse``) with a hash-based path that
is 5-10x slower here than sorting and dropping repeats (1.7M codes: 250 ms against 21 ms);
with ``return_inverse`` it still sorts. Same values, same order, for any integer dtype.
"""

from __future__ import annotations

import numpy as np


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` for a 1-D integer array, by sorting."""
    s = np.sort(values, kind="quicksort")
    if len(s) < 2:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]
