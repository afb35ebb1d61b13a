"""Cut a text into chunks, find its distinct chunks, and chain per-chunk ids back: in whole arrays.

Encoders whose chunks are independent (RWKV between byte pairs no token holds, WPM words) encode
each distinct chunk once. Doing the bookkeeping in Python (slice every chunk, ``dict.fromkeys``,
chain the cached tuples) cost ~0.3 us a chunk: 40 ms for the 137k chunks of 0.5 MB with RWKV,
more than llama.cpp's whole encode. Here a chunk of up to 15 bytes is named by its bytes read as
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

from tui_tok.tokenizer.arrays.sorted_unique import unique_inverse

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

    def name(where: np.ndarray, keys: np.ndarray) -> None:
        """Distinct keys of the chunks at ``where`` -> the next indices."""
        nonlocal named
        if not len(where):
            return
        uniq, inverse = unique_inverse(keys)
        occ[where] = inverse + named
        first = np.empty(len(uniq), dtype=np.int64)
        first[inverse] = where
        firsts.append(first)
        named += len(uniq)

    short = np.flatnonzero(lengths <= _SHORT)
    lens = lengths[short]
    name(short, (words[begin[short]] & _MASKS[lens]) | _TAGS[lens])

    medium = np.flatnonzero((lengths > _SHORT) & (lengths <= 2 * _SHORT + 1))
    if len(medium):
        at = begin[medium]
        rest = lengths[medium] - 8
        _, first_word = unique_inverse(words[at].astype(np.int64) & np.int64(0x7FFFFFFFFFFFFFFF))
        high = words[at] >> np.uint64(63)  # the bit the mask above dropped
        _, second = unique_inverse((words[at + 8] & _MASKS[rest]) | _TAGS[rest])
        pair = ((first_word * 2 + high.astype(np.int64)) * len(medium)) + second
        name(medium, pair)

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
