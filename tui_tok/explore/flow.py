"""Greedy wrapping of items of known cell widths into rows (the id strip's ids), and re-wrapping
after an edit that reuses the rows the edit cannot have changed. Knows nothing of tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def flow_rows(widths: Sequence[int] | np.ndarray, *, width: int) -> np.ndarray:
    """Greedy wrap of items of the given cell widths into rows of ``width`` cells.

    Returns the index of the first item of each row, plus ``len(widths)`` at the end. A row
    takes items while they fit, and at least one. Each row's end is found by one vectorised
    search over the running widths, so the Python loop runs once per row, not once per item
    (a 100 KB text has ~30k ids but ~2k rows of them).

    >>> flow_rows([3, 3, 3], width=7).tolist()
    [0, 2, 3]
    """
    width = max(1, width)
    w = np.asarray(widths)
    if w.dtype.kind != "u":
        w = np.maximum(w.astype(np.int64, copy=False), 0)
    n = len(w)
    if n == 0:
        return np.asarray([0, 0], dtype=np.int64)
    # running widths as int32 when they fit (3M labels: 12 MB a temporary, not 24)
    cum = np.zeros(n + 1, dtype=np.int32 if n * (int(w.max()) + 1) + width < 2**31 else np.int64)
    np.cumsum(w, dtype=cum.dtype, out=cum[1:])
    # items i .. last[i]-1 fit in a row that starts at item i; a row holds at least one item
    needles = cum[:-1] + width
    last = np.searchsorted(cum, needles, side="right")
    del needles, cum
    last -= 1
    np.maximum(last, np.arange(1, n + 1, dtype=last.dtype), out=last)
    # read an item per row, not the whole array as a list (3M labels: one long call holding the interpreter)
    item = last.item
    starts = [0]
    i = 0
    while i < n:
        i = item(i)
        starts.append(i)
    return np.asarray(starts, dtype=np.int64)


def reflow_rows(
    old_starts: np.ndarray, old_widths: np.ndarray, new_widths: np.ndarray, *, width: int, window: int = 4096
) -> np.ndarray:
    """``flow_rows(new_widths, width=width)``, reusing ``old_starts = flow_rows(old_widths, width=width)``.

    An edit changes a few items: the rows before the first changed item stay, and once a new
    row starts inside the unchanged tail at an item that also started an old row, every later
    row is the old one shifted (greedy wrapping only looks forward). So only the rows between
    are flowed again, a ``window`` of items at a time. Typing into a 100 KB text (30k ids)
    then costs a few rows instead of a full flow.

    >>> old = flow_rows([3, 3, 3, 3], width=7)
    >>> reflow_rows(old, np.array([3, 3, 3, 3]), np.array([3, 5, 3, 3, 3]), width=7).tolist()
    [0, 1, 2, 4, 5]
    """
    # compared in their own type (3M uint8 labels: no 24 MB int64 copies)
    old_w = np.asarray(old_widths)
    new_w = np.asarray(new_widths)
    if new_w.dtype.kind != "u":
        new_w = np.maximum(new_w.astype(np.int64, copy=False), 0)
    n_old, n_new = len(old_w), len(new_w)
    if n_old == 0 or n_new == 0 or len(old_starts) != int(np.searchsorted(old_starts, n_old, side="right")):
        return flow_rows(new_w, width=width)
    width = max(1, width)
    m = min(n_old, n_new)
    first = _first_difference(old_w[:m], new_w[:m])
    if first == n_old == n_new:
        return np.asarray(old_starts, dtype=np.int64)
    k = m - first  # the common tail may not overlap the common head
    same_tail = _first_difference(old_w[n_old - k :][::-1], new_w[n_new - k :][::-1]) if k else 0
    tail_start, delta = n_new - same_tail, n_new - n_old
    # the row holding the item before the first change: its end was decided by that change
    row = min(max(0, int(np.searchsorted(old_starts, first - 1, side="right")) - 1), len(old_starts) - 2)
    head = np.asarray(old_starts[:row], dtype=np.int64)
    out: list[int] = []  # the rows flowed again (the head and the shifted tail stay numpy: 3M labels are ~200k rows)
    pos = int(old_starts[row])
    while True:
        hi = min(n_new, pos + window)
        cum = np.concatenate(([0], np.cumsum(new_w[pos:hi], dtype=np.int64)))
        last = np.searchsorted(cum, cum[:-1] + width, side="right") - 1
        nxt = np.maximum(last, np.arange(1, hi - pos + 1)).tolist()
        i = 0
        while True:
            start = pos + i
            if start >= tail_start:
                old_row = int(np.searchsorted(old_starts, start - delta))
                if old_row < len(old_starts) and int(old_starts[old_row]) == start - delta:
                    tail = np.asarray(old_starts[old_row:], dtype=np.int64) + delta
                    return np.concatenate((head, np.asarray(out, dtype=np.int64), tail))
            out.append(start)
            j = nxt[i]
            if j >= hi - pos and hi < n_new:  # the row may run past this window: flow on from its start
                out.pop()
                if i == 0:  # not even one row fits in a window
                    window *= 2
                pos = start
                break
            if pos + j >= n_new:
                out.append(n_new)
                return np.concatenate((head, np.asarray(out, dtype=np.int64)))
            i = j


def _first_difference(a: np.ndarray, b: np.ndarray) -> int:
    """The first index where ``a`` and ``b`` (of one length) differ, or their length: by
    ``argmax``, not ``flatnonzero`` (after an insert most of 3M labels differ by position)."""
    differ = a != b
    return int(differ.argmax()) if differ.any() else len(a)
