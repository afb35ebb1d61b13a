"""libstdc++'s ``std::sort`` (introsort), step for step, so unstable tie order matches llama.cpp.

llama.cpp orders its special-token cache with ``std::sort`` and a "longer text first" comparator
(llama-vocab.cpp:3042-3046). ``std::sort`` is not stable: tokens of equal length come out in an
order that depends on the algorithm's exact swaps. That order decides which of two overlapping
equal-length special tokens the partition splits first, so we replay GCC's algorithm
(bits/stl_algo.h, bits/stl_heap.h: introsort with a threshold of 16, median-of-three pivot,
heap sort past depth 2*lg(n), then a final insertion sort) on plain lists.

Does not emulate other standard libraries (libc++ and MSVC order ties differently).

>>> libstdcxx_sort([0, 1, 2, 3], key=[1, 3, 3, 2].__getitem__, greater=True)
[1, 2, 3, 0]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

_THRESHOLD = 16


def libstdcxx_sort(items: Sequence[T], *, key: Callable[[T], int], greater: bool = False) -> list[T]:
    """Return ``items`` ordered as ``std::sort(begin, end, comp)`` orders them.

    ``comp(a, b)`` is ``key(a) > key(b)`` when ``greater`` else ``key(a) < key(b)``.
    """
    a = list(items)
    n = len(a)
    if n < 2:
        return a
    k = [key(x) for x in a]
    if greater:
        k = [-x for x in k]
    # sort a list of (key, item) pairs in place, comparing keys only
    pairs = list(zip(k, a))
    _introsort_loop(pairs, 0, n, 2 * (n.bit_length() - 1))
    _final_insertion_sort(pairs, 0, n)
    return [p[1] for p in pairs]


def _introsort_loop(v: list, first: int, last: int, depth: int) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(v, first, last)
            return
        depth -= 1
        cut = _partition_pivot(v, first, last)
        _introsort_loop(v, cut, last, depth)
        last = cut


def _partition_pivot(v: list, first: int, last: int) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(v, first, first + 1, mid, last - 1)
    # unguarded partition of [first+1, last) around v[first]
    pivot = v[first][0]
    lo, hi = first + 1, last
    while True:
        while v[lo][0] < pivot:
            lo += 1
        hi -= 1
        while pivot < v[hi][0]:
            hi -= 1
        if not lo < hi:
            return lo
        v[lo], v[hi] = v[hi], v[lo]
        lo += 1


def _move_median_to_first(v: list, result: int, a: int, b: int, c: int) -> None:
    ka, kb, kc = v[a][0], v[b][0], v[c][0]
    if ka < kb:
        if kb < kc:
            pick = b
        elif ka < kc:
            pick = c
        else:
            pick = a
    elif ka < kc:
        pick = a
    elif kb < kc:
        pick = c
    else:
        pick = b
    v[result], v[pick] = v[pick], v[result]


def _final_insertion_sort(v: list, first: int, last: int) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(v, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(v, i)
    else:
        _insertion_sort(v, first, last)


def _insertion_sort(v: list, first: int, last: int) -> None:
    for i in range(first + 1, last):
        if v[i][0] < v[first][0]:
            val = v[i]
            v[first + 1 : i + 1] = v[first:i]
            v[first] = val
        else:
            _unguarded_linear_insert(v, i)


def _unguarded_linear_insert(v: list, last: int) -> None:
    val = v[last]
    nxt = last - 1
    while val[0] < v[nxt][0]:
        v[last] = v[nxt]
        last = nxt
        nxt -= 1
    v[last] = val


def _heap_sort(v: list, first: int, last: int) -> None:
    """``std::__partial_sort(first, last, last)``: make_heap then sort_heap."""
    length = last - first
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _adjust_heap(v, first, parent, length, v[first + parent])
            if parent == 0:
                break
            parent -= 1
    while last - first > 1:
        last -= 1
        value = v[last]
        v[last] = v[first]
        _adjust_heap(v, first, 0, last - first, value)


def _adjust_heap(v: list, first: int, hole: int, length: int, value: tuple) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if v[first + child][0] < v[first + child - 1][0]:
            child -= 1
        v[first + hole] = v[first + child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole] = v[first + child - 1]
        hole = child - 1
    # push_heap
    parent = (hole - 1) // 2
    while hole > top and v[first + parent][0] < value[0]:
        v[first + hole] = v[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole] = value
