"""The distinct chunks among those the whole-chunk lookup missed (``rwkv/encoder.py``).

Each distinct chunk is matched once (``rwkv/greedy.py``): 21.5k missed chunks of the 0.56 MB
benchmark corpus are 4.3k distinct ones. Chunks of up to 15 bytes are named exactly by the two
words they were looked up with; longer ones are compared as masked words. All in numpy:
``arrays/chunks.distinct_spans`` recomputed the keys of the short ones and sliced and hashed
the long ones in Python.

A fast path: what it computes equals ``rwkv/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).

>>> from tui_tok.tokenizer.arrays.chunks import word_view
>>> text = b"a long chunk, seventeen" + b"a long chunk, seventeen" + b"another long chunk"
>>> occ, rep = distinct_long(word_view(text), np.array([0, 23, 46]), np.array([23, 23, 18]))
>>> occ.tolist(), rep.tolist()
([0, 0, 1], [1, 2])
"""

from __future__ import annotations

import numpy as np

from tui_tok.tokenizer.arrays.chunks import distinct_spans, hash_unique
from tui_tok.tokenizer.rwkv.table import MAX_LEN

_BYTE_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_WIDEST = 32
"""Chunks of up to this many words (256 bytes) are told apart in ``distinct_long``."""


def distinct_long(words: np.ndarray, at: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct chunks among those at ``at`` (``size`` bytes, more than 15), as
    ``hash_unique`` gives them, in numpy (``distinct_spans`` sliced and hashed each in Python, a
    visible part of an encode of the benchmark corpus). Each chunk is read as masked
    words, hashed two ways, grouped by both hashes, and every chunk is then compared word by
    word with its group's representative: exact, or None (a hash collision, or a chunk too long) and
    the caller does it the slow way."""
    width = (int(size.max()) + 7) // 8
    if width > _WIDEST:
        return None
    step = 8 * np.arange(width, dtype=np.int64)
    got = words[np.minimum(at[:, None] + step, len(words) - 1)]
    got &= _BYTE_MASKS[np.clip(size[:, None] - step, 0, 8)]
    h1 = size.astype(np.uint64)
    h2 = h1.copy()
    for column in got.T:
        h1 = (h1 ^ column) * np.uint64(0x9E3779B97F4A7C15)
        h2 = (h2 + column) * np.uint64(0xC2B2AE3D27D4EB4F) ^ (h2 >> np.uint64(29))
    inverse, rep = hash_unique(h1, h2)
    if not ((got == got[rep][inverse]).all() and (size == size[rep][inverse]).all()):
        return None
    return inverse, rep


def distinct_misses(
    text: bytes, words: np.ndarray, at: np.ndarray, size: np.ndarray, k1: np.ndarray, k2: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``distinct_spans`` of the chunks at ``at`` (``size`` bytes; ``k1``, ``k2`` their lookup
    keys, exact for 15 bytes or less): those keys are already at hand, so the short chunks are
    told apart by them alone; the longer ones by ``distinct_long``."""
    short = size <= MAX_LEN
    few = np.flatnonzero(short)
    occ = np.empty(at.size, dtype=np.int64)
    inverse, rep = hash_unique(k1[few], k2[few])
    occ[few] = inverse
    first, length = at[few[rep]], size[few[rep]]
    if not short.all():
        rest = np.flatnonzero(~short)
        got = distinct_long(words, at[rest], size[rest])
        if got is None:
            occ_long, at_long, size_long = distinct_spans(text, at[rest], at[rest] + size[rest])
        else:
            occ_long, at_long, size_long = got[0], at[rest[got[1]]], size[rest[got[1]]]
        occ[rest] = occ_long + rep.size
        first, length = np.concatenate((first, at_long)), np.concatenate((length, size_long))
    return occ, first, length
