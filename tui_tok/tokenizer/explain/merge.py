"""llama.cpp's merge loop with a trace: the heap of adjacent pairs both BPE (V:620-690) and
SPM (V:115-239) run, recording each applied merge.

The pair order is the engine's: BPE pops the lowest rank, SPM the highest score (priority
``-score``), ties to the leftmost pair; stale heap entries (a side merged away or grown) are
skipped exactly as in ``bpe/encoder.py``'s ``_merge_heap`` and ``spm/merge.py``'s ``merge``.
The callers check the final symbols against the encoder's own merge, so the trace cannot
drift from the ids.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import TypeVar

S = TypeVar("S", str, bytes)


def traced_merge(
    symbols: Sequence[S], priority: Callable[[S, S], float | None]
) -> tuple[list[S], list[tuple[S, S, float, int]]]:
    """Final symbols and the applied merges ``(left, right, priority, at)`` in order, ``at``
    being the index of ``left`` among the symbols just before that merge."""
    n = len(symbols)
    text = list(symbols)
    if n < 2:
        return text, []
    nxt = list(range(1, n)) + [-1]
    prv = list(range(-1, n - 1))
    alive = [1] * n  # prefix count of live symbols is what ``at`` needs (a Fenwick tree)
    tree = [0] * (n + 1)
    for i in range(n):
        j = i + 1
        while j <= n:
            tree[j] += 1
            j += j & -j
    heap: list[tuple[float, int, int, int]] = []
    for i in range(n - 1):
        p = priority(text[i], text[i + 1])
        if p is not None:
            heap.append((p, i, i + 1, len(text[i]) + len(text[i + 1])))
    heapq.heapify(heap)
    steps: list[tuple[S, S, float, int]] = []
    while heap:
        p, left, right, size = heapq.heappop(heap)
        lt, rt = text[left], text[right]
        if not alive[left] or not alive[right] or len(lt) + len(rt) != size or nxt[left] != right:
            continue
        at = 0
        j = left  # live symbols before ``left``
        while j > 0:
            at += tree[j]
            j -= j & -j
        steps.append((lt, rt, p, at))
        text[left] = lt + rt
        alive[right] = 0
        j = right + 1
        while j <= n:
            tree[j] -= 1
            j += j & -j
        nxt[left] = nxt[right]
        if nxt[right] >= 0:
            prv[nxt[right]] = left
        q = prv[left]
        if q >= 0:
            p2 = priority(text[q], text[left])
            if p2 is not None:
                heapq.heappush(heap, (p2, q, left, len(text[q]) + len(text[left])))
        q = nxt[left]
        if q >= 0:
            p2 = priority(text[left], text[q])
            if p2 is not None:
                heapq.heappush(heap, (p2, left, q, len(text[left]) + len(text[q])))
    return [t for t, a in zip(text, alive) if a], steps


def replay(symbols: Sequence[str], steps: Sequence[tuple[str, str, int]]) -> list[list[str]]:
    """The symbol rows of a merge sequence: the initial symbols, then the row after each
    ``(left, right, at)`` merge (for the debugger view; checks each step matches its row)."""
    rows = [list(symbols)]
    row = list(symbols)
    for left, right, at in steps:
        if row[at] != left or row[at + 1] != right:
            raise ValueError(f"step ({left!r}, {right!r}) does not match symbols at {at}")
        row = row[:at] + [left + right] + row[at + 2 :]
        rows.append(row)
    return rows
