"""RWKV tokens longer than 15 bytes, matched in numpy.

``rwkv/greedy.py`` names tokens of up to 15 bytes by two 64-bit words. The few longer ones (282
in rwkv-world: runs of spaces, dashes, Cyrillic words) are found here: an offset can start one
only if its byte pair starts one and its first 16 bytes hash like one's head (a sorted search);
those few offsets are compared with every such token, word by word, in one 2-D gather. Walking
them in Python instead (``bytes.startswith``) was a visible part of encoding the benchmark
corpus, whose Cyrillic words are often one long token.

A fast path: what it computes equals ``rwkv/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).

>>> blob = b"abcdefghijklmnopq" + b"abcdefghijklmnopqrs"
>>> tokens = LongTokens.build(blob, np.array([0, 17]), np.array([17, 19]), np.array([5, 6]))
>>> text = b"abcdefghijklmnopqrs" + bytes(8)
>>> tokens.matches(word_view(text), np.array([0]), np.array([19]))[1].tolist()
[6]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui_tok.tokenizer.arrays.chunks import word_view

SHORT = 15
"""Tokens up to this long are ``greedy.py``'s."""

_K = np.uint64(0xC2B2AE3D27D4EB4F)
_ONES = np.uint64((1 << 64) - 1)


def head16(words: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A hash of the 16 bytes from each offset (equal bytes, equal hash; not the reverse)."""
    return words[at] ^ (words[at + 8] * _K)


@dataclass(frozen=True, slots=True, eq=False)
class LongTokens:
    """The tokens longer than 15 bytes, sorted by head hash and, within one, longest first."""

    pairs: np.ndarray
    """bool[65536]: the byte pairs (a << 8 | b) that start one."""
    heads: np.ndarray
    """uint64: ``head16`` of each token's first 16 bytes (ascending)."""
    sizes: np.ndarray
    """int64: each token's length."""
    ids: np.ndarray
    """int64: each token's id."""
    words: np.ndarray
    """uint64[tokens, W]: each token's bytes as little-endian words, zeros past its end."""
    masks: np.ndarray
    """uint64[tokens, W]: which bits of ``words`` belong to the token."""

    @classmethod
    def build(cls, blob: bytes, offsets: np.ndarray, sizes: np.ndarray, ids: np.ndarray) -> LongTokens:
        """From the distinct tokens' bytes end to end (``blob``), where each starts, their
        lengths and ids; tokens of 15 bytes or less are skipped."""
        big = np.flatnonzero(sizes > SHORT)
        view = word_view(blob)
        heads = head16(view, offsets[big])
        order = big[np.lexsort((-sizes[big], heads))]
        at, size = offsets[order], sizes[order]
        width = max(1, (int(size.max(initial=0)) + 7) // 8)
        step = 8 * np.arange(width, dtype=np.int64)
        words = view[np.minimum(at[:, None] + step, len(view) - 1)]
        left = np.clip(size[:, None] - step, 0, 8)  # bytes of the token in each word
        masks = np.where(left >= 8, _ONES, (np.uint64(1) << (8 * left).astype(np.uint64)) - np.uint64(1))
        data = np.frombuffer(blob + b"\0", dtype=np.uint8)
        pairs = np.zeros(1 << 16, dtype=bool)
        pairs[(data[at].astype(np.int64) << 8) | data[at + 1]] = True
        return cls(pairs=pairs, heads=head16(view, at), sizes=size, ids=ids[order], words=words & masks, masks=masks)

    def matches(
        self, words: np.ndarray, here: np.ndarray, rest: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The longest of these tokens at each offset ``here`` of the text whose ``word_view``
        is ``words`` (``rest[k]`` bytes left in its chunk, at least 16): which offsets have one
        (indices into ``here``), its id, its length."""
        none = np.zeros(0, dtype=np.int64)
        if not self.heads.size or not here.size:
            return none, none, none
        h = head16(words, here)
        lo = np.searchsorted(self.heads, h, side="left")
        count = np.searchsorted(self.heads, h, side="right") - lo
        query = np.repeat(np.arange(here.size, dtype=np.int64), count)
        if not query.size:
            return none, none, none
        cand = np.arange(query.size, dtype=np.int64) + np.repeat(lo - (np.cumsum(count) - count), count)
        fit = np.flatnonzero(self.sizes[cand] <= rest[query])  # many share a head (runs of spaces)
        query, cand = query[fit], cand[fit]
        width = (int(self.sizes[cand].max(initial=0)) + 7) // 8  # words worth comparing
        step = 8 * np.arange(width, dtype=np.int64)
        got = words[np.minimum(here[query][:, None] + step, len(words) - 1)]
        same = (got & self.masks[cand, :width]) == self.words[cand, :width]
        good = np.flatnonzero(same.all(axis=1))
        first = np.ones(good.size, dtype=bool)  # candidates come longest first per offset
        first[1:] = query[good[1:]] != query[good[:-1]]
        good = good[first]
        return query[good], self.ids[cand[good]], self.sizes[cand[good]]
