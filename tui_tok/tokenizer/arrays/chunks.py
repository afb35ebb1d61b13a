"""Cut a text into chunks, find its distinct chunks, and chain per-chunk ids back: in whole arrays.

Encoders whose chunks are independent (RWKV between byte pairs no token holds, WPM words) encode
each distinct chunk once. Doing the bookkeeping in Python (slice every chunk, ``dict.fromkeys``,
chain the cached tuples) cost more than llama.cpp's whole encode of the same text with RWKV. Here a chunk of up to 15 bytes is named by its bytes read as
one or two 64-bit words (exact: the length is in the top byte), so finding the distinct chunks
is a sort of integers; only distinct chunks and chunks longer than 15 bytes (about 2 % of them)
become ``bytes``. The ids are chained back with one ragged gather.

>>> occ, distinct = distinct_chunks(b"abcabxabc", [0, 3, 6])
>>> [distinct[i] for i in occ.tolist()]
[b'abc', b'abx', b'abc']
>>> distinct_chunks(b"ab ab", [0, 3], [2, 5])[0].tolist()
[0, 0]
>>> chain_ids(occ, [{b"abc": (1, 2), b"abx": (3,)}[c] for c in distinct])
[1, 2, 3, 1, 2]
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np

_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)], dtype=np.uint64)
_TAGS = np.arange(8, dtype=np.uint64) << np.uint64(56)
_SHORT = 7
"""A chunk of up to this many bytes is one word (bytes below, length in the top byte)."""


def word_view(text: bytes) -> np.ndarray:
    """uint64[len(text)]: the 8 bytes from each offset, little-endian (zeros past the end); a
    strided view, no copy of 8x the text."""
    padded = text + bytes(16)
    return np.ndarray(shape=(len(text) + 8,), dtype="<u8", buffer=padded, strides=(1,))


def distinct_chunks(
    text: bytes, starts: Sequence[int] | np.ndarray, ends: np.ndarray | None = None
) -> tuple[np.ndarray, list[bytes]]:
    """``text`` cut at ``starts`` (ascending, the first 0), or the non-empty ranges ``starts[k]:
    ends[k]``: each chunk's index into the list of distinct chunks, and that list (in no
    particular order)."""
    occ, at, size = distinct_spans(text, starts, ends)
    return occ, list(map(text.__getitem__, map(slice, at.tolist(), (at + size).tolist())))


def distinct_spans(
    text: bytes, starts: Sequence[int] | np.ndarray, ends: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``distinct_chunks`` as arrays: each chunk's distinct index, and where one occurrence of
    each distinct chunk starts and how long it is."""
    n = len(text)
    begin = np.asarray(starts, dtype=np.int64)
    if not n or not len(begin):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    if ends is None:
        lengths = np.empty(len(begin), dtype=np.int64)
        np.subtract(begin[1:], begin[:-1], out=lengths[:-1])
        lengths[-1] = n - begin[-1]
    else:
        lengths = np.asarray(ends, dtype=np.int64) - begin
    words = word_view(text)
    occ = np.empty(len(begin), dtype=np.int64)
    firsts: list[np.ndarray] = []  # per length class: the chunk index of one occurrence of each
    named = 0

    def name(where: np.ndarray, key: np.ndarray, key2: np.ndarray | None = None) -> None:
        """Distinct keys of the chunks at ``where`` -> the next indices."""
        nonlocal named
        if not len(where):
            return
        inverse, first = hash_unique(key, key2)
        occ[where] = inverse + named
        firsts.append(where[first])
        named += len(first)

    short = np.flatnonzero(lengths <= _SHORT)
    lens = lengths[short]
    name(short, (words[begin[short]] & _MASKS[lens]) | _TAGS[lens])

    medium = np.flatnonzero((lengths > _SHORT) & (lengths <= 2 * _SHORT + 1))
    if len(medium):
        at = begin[medium]
        rest = lengths[medium] - 8
        name(medium, words[at], (words[at + 8] & _MASKS[rest]) | _TAGS[rest])

    long = np.flatnonzero(lengths > 2 * _SHORT + 1)
    if len(long):
        chunks = list(map(text.__getitem__, map(slice, begin[long].tolist(), (begin + lengths)[long].tolist())))
        index: dict[bytes, int] = {}
        first_of: list[int] = []
        for k, chunk in zip(long.tolist(), chunks):
            if chunk not in index:
                index[chunk] = named + len(first_of)
                first_of.append(k)
        occ[long] = list(map(index.__getitem__, chunks))
        firsts.append(np.array(first_of, dtype=np.int64))
    first = np.concatenate(firsts) if firsts else np.zeros(0, dtype=np.int64)
    return occ, begin[first], lengths[first]


_MIX1 = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xC2B2AE3D27D4EB4F)


def hash_unique(key: np.ndarray, key2: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``key`` (uint64; or of the pairs ``(key, key2)``), without a sort:
    each value's index among the distinct ones, and one position holding each, in position order.

    Every value is scattered into a hash table (the last writer of a slot wins) and reads back
    the position that won its slot: equal values share a slot, so they all get the same winner;
    if that winner holds another value (a collision), they all try again with another hash.

    >>> inverse, first = hash_unique(np.array([7, 3, 7, 9, 3], dtype=np.uint64))
    >>> inverse.tolist(), first.tolist()
    ([0, 2, 0, 1, 2], [2, 3, 4])
    """
    n = key.size
    won = np.empty(n, dtype=np.int64)
    todo = np.arange(n, dtype=np.int64)
    bits = max(4, int(2 * n).bit_length())
    shift = np.uint64(64 - bits)
    attempt = 0
    while todo.size:
        mixed = key[todo] if key2 is None else key[todo] ^ (key2[todo] * _MIX2)
        slot = (((mixed ^ np.uint64(attempt * 0x5851F42D4C957F2D % (1 << 64))) * _MIX1) >> shift).astype(np.int64)
        table = np.empty(1 << bits, dtype=np.int64)
        table[slot] = todo
        got = table[slot]
        same = key[got] == key[todo]
        if key2 is not None:
            same &= key2[got] == key2[todo]
        won[todo[same]] = got[same]
        todo = todo[~same]
        attempt += 1
    is_first = np.zeros(n, dtype=bool)
    is_first[won] = True
    index = np.cumsum(is_first) - 1
    return index[won], np.flatnonzero(is_first)


def chain_ids(occ: np.ndarray, ids: Sequence[tuple[int, ...]]) -> list[int]:
    """The ids of every chunk in order: ``ids[occ[0]] + ids[occ[1]] + ...``, by one gather."""
    if not len(occ):
        return []
    sizes = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
    flat = np.fromiter(chain.from_iterable(ids), dtype=np.int64, count=int(sizes.sum()))
    return chain_flat(occ, flat, sizes).tolist()


def chain_flat(occ: np.ndarray, flat: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``chain_ids`` with the distinct chunks' ids given flat (``sizes[d]`` ids each, in order)."""
    if not len(occ):
        return np.zeros(0, dtype=flat.dtype)
    offsets = np.cumsum(sizes) - sizes
    occ_sizes = sizes[occ]
    out_starts = np.cumsum(occ_sizes) - occ_sizes
    total = int(out_starts[-1] + occ_sizes[-1])
    index = np.arange(total, dtype=np.int64) - np.repeat(out_starts - offsets[occ], occ_sizes)
    return flat[index]
