"""The RWKV tokens of 1-15 bytes as a hash table probed for many substrings at once, in numpy.

A substring of up to 15 bytes is named exactly by two 64-bit words (its first 8 bytes; the next
7 and its length in the top byte), so "which token is ``text[o:o+L]``" is a probe with those two
words, done for every substring together (``rwkv/greedy.py``, ``rwkv/encoder.py``).

Layout, for the cache: the 0.56 MB benchmark text probes the table ~170k times at random,
right after other work has evicted it, so each probe's cache misses are most of its cost. Each
key sits in its home slot as three adjacent words (key, key, id: one cache line, where separate
arrays and a bucket index cost four misses). A home taken by an earlier key sends the later
ones to a small bucketed overflow table, and flags the home (the top bit of its second word,
free since lengths fit in 4 bits) so that only probes landing there look in the overflow.

>>> table = TokenTable.build({b"a": 0, b"ab": 1, b"abc": 2})
>>> from tui_tok.tokenizer.arrays.chunks import word_view
>>> table.find(*keys(word_view(b"abcd"), np.array([0, 0, 0, 1]), np.array([1, 3, 4, 2]))).tolist()
[0, 2, -1, -1]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui_tok.tokenizer.arrays.chunks import word_view
from tui_tok.tokenizer.rwkv.long import LongTokens

MAX_LEN = 15
"""Longest token (and chunk) this table names: 8 + 7 bytes, the length in the top byte."""

_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_FIRST = _MASKS[np.minimum(np.arange(MAX_LEN + 1), 8)]
"""By length: the mask keeping a key's first word (its bytes 0-7 that belong to it)."""
_SECOND = _MASKS[np.maximum(np.arange(MAX_LEN + 1) - 8, 0)]
"""By length: the mask keeping its bytes 8-14."""
_TAG = np.arange(MAX_LEN + 1, dtype=np.uint64) << np.uint64(56)
"""By length: the length in the top byte of the second word."""
_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)
_FLAG = np.uint64(1 << 63)
"""Set in a home slot's second word when more keys with that home are in the overflow."""
_UNFLAG = np.uint64((1 << 63) - 1)


def keys(words: np.ndarray, at: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two words naming ``text[at:at+length]`` (1 <= length <= 15) for each pair (masks by
    length from tables: half the passes of computing them). ``words`` may be a contiguous copy
    of ``word_view``: gathering many from it is faster than from the strided view (but never
    ``take`` from that view: it copies the whole array first)."""
    first = words[at]
    first &= _FIRST.take(length)
    second = words[at + 8]
    second &= _SECOND.take(length)
    second |= _TAG.take(length)
    return first, second


def chunk_keys(view: np.ndarray, at: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``keys`` of ``text[at:at+size]`` capped at 15 bytes, for every chunk of a text at once,
    gathered from the strided ``word_view`` itself: a contiguous copy of it is 8 bytes per text
    byte (4.5 MB for the 0.56 MB benchmark text), fresh pages to fault and a cache flushed, for
    gathers only a little faster. The second word is read only for the chunks longer than 8 bytes
    (10 % of them); the others' is their length tag alone. Two temporaries of one word per chunk."""
    length = np.minimum(size, MAX_LEN)
    first = view[at]
    second = np.take(_FIRST, length)
    first &= second
    np.take(_TAG, length, out=second)
    big = np.flatnonzero(length > 8)
    second[big] |= view[at[big] + 8] & _SECOND.take(length[big])
    return first, second


def _home(k1: np.ndarray, k2: np.ndarray, shift: np.uint64) -> np.ndarray:
    """The slot of each key: the top bits of a multiplicative mix (in place: one temporary)."""
    mixed = k2 * _K2
    mixed ^= k1
    mixed *= _K1
    mixed >>= shift
    return mixed.view(np.int64)


def _by_home(home: np.ndarray) -> np.ndarray:
    """Indices sorting ``home`` (one integer sort of home and index packed together: a fraction
    of ``argsort``'s time)."""
    low = int(home.size).bit_length()
    return np.sort((home << low) | np.arange(home.size, dtype=np.int64)) & ((1 << low) - 1)


@dataclass(frozen=True, slots=True, eq=False)
class _Buckets:
    """Keys in buckets, each bucket's keys together: a miss in an empty bucket costs one
    compare (linear probing walked to the end of a cluster: the longest set every find's rounds)."""

    first: np.ndarray
    """uint64 per slot: a key's first word; one empty slot at the end."""
    second: np.ndarray
    """uint64 per slot: its second word (0: empty, no key's, whose length is >= 1)."""
    ids: np.ndarray
    """int64 id per slot."""
    start: np.ndarray
    """int64[buckets]: bucket b's keys are the slots from ``start[b]`` on..."""
    fill: np.ndarray
    """uint8[buckets]: ...and there are this many."""
    shift: np.uint64

    @classmethod
    def build(cls, k1: np.ndarray, k2: np.ndarray, ids: np.ndarray) -> _Buckets:
        bits = max(4, int(max(ids.size, 1)).bit_length())
        shift = np.uint64(64 - bits)
        home = _home(k1, k2, shift)
        order = _by_home(home)
        fill = np.bincount(home, minlength=1 << bits)
        return cls(
            first=np.append(k1[order], np.uint64(0)),
            second=np.append(k2[order], np.uint64(0)),
            ids=np.append(ids[order], -1),
            start=np.cumsum(fill) - fill,
            fill=fill.astype(np.uint8) if fill.max(initial=0) < 256 else fill,
            shift=shift,
        )

    def find(self, k1: np.ndarray, k2: np.ndarray) -> np.ndarray:
        """Id of each key, -1 where there is none. Round j compares each key with its bucket's
        j-th; equal keys share a bucket, so a compare past a bucket's end never hits."""
        home = _home(k1, k2, self.shift)
        lo = self.start.take(home)
        hit = self.second.take(lo) == k2
        hit &= self.first.take(lo) == k1
        out = np.where(hit, self.ids.take(lo), -1)
        left = self.fill.take(home)
        np.logical_not(hit, out=hit)
        hit &= left > 1
        todo = np.flatnonzero(hit)
        j = 1
        while todo.size:
            slot = lo[todo] + j
            hit = (self.second[slot] == k2[todo]) & (self.first[slot] == k1[todo])
            out[todo[hit]] = self.ids[slot[hit]]
            j += 1
            todo = todo[~hit & (left[todo] > j)]
        return out


@dataclass(frozen=True, slots=True, eq=False)
class TokenTable:
    """Tokens of 1-15 bytes by their two words (module docstring), the longest token starting
    with each byte pair, and the tokens longer than 15 bytes."""

    slots: np.ndarray
    """uint64[3 * slots]: per slot a key's two words (the second maybe flagged) and its id;
    an empty slot's second word is 0."""
    shift: np.uint64
    """64 - log2(slots): the top bits of the mixed key are the home slot."""
    overflow: _Buckets
    """The keys whose home slot holds another."""
    longest: np.ndarray
    """uint8[65536]: longest token (capped at 15) whose first two bytes are the pair (a << 8 | b)."""
    starts: np.ndarray
    """bool[256]: the bytes that start some token."""
    pair_ids: np.ndarray
    """int64[65536]: the id of the token of two bytes (a << 8 | b), -1 if none."""
    byte_ids: np.ndarray
    """int64[256]: the id of the token of one byte, -1 if none."""
    long: LongTokens
    """The tokens longer than 15 bytes."""

    @classmethod
    def build(cls, token_ids: dict[bytes, int]) -> TokenTable:
        """From raw token bytes -> id (one id per distinct bytes, as the caller resolved them)."""
        raws = list(token_ids)
        sizes = np.fromiter(map(len, raws), dtype=np.int64, count=len(raws))
        ids = np.fromiter(token_ids.values(), dtype=np.int64, count=len(raws))
        return cls.from_packed(b"".join(raws), sizes, ids)

    @classmethod
    def from_packed(cls, blob: bytes, sizes: np.ndarray, every: np.ndarray) -> TokenTable:
        """``build`` from the distinct tokens' bytes end to end, their lengths and their ids."""
        offsets = np.cumsum(sizes) - sizes
        data = np.frombuffer(blob + b"\0", dtype=np.uint8)
        starts = np.zeros(256, dtype=bool)
        starts[data[offsets[sizes > 0]]] = True
        pair = (data[offsets].astype(np.int64) << 8) | data[offsets + 1]
        two = sizes >= 2
        longest = np.zeros(1 << 16, dtype=np.uint8)
        np.maximum.at(longest, pair[two], np.minimum(sizes[two], MAX_LEN).astype(np.uint8))
        pair_ids = np.full(1 << 16, -1, dtype=np.int64)
        pair_ids[pair[sizes == 2]] = every[sizes == 2]
        byte_ids = np.full(256, -1, dtype=np.int64)
        byte_ids[data[offsets[sizes == 1]]] = every[sizes == 1]
        keep = (sizes > 0) & (sizes <= MAX_LEN)
        k1, k2 = keys(word_view(blob), offsets[keep], sizes[keep])
        tids = every[keep]
        bits = max(4, int(max(tids.size, 1)).bit_length() + 1)  # at most half the slots taken
        shift = np.uint64(64 - bits)
        home = _home(k1, k2, shift)
        order = _by_home(home)
        sorted_home = home[order]
        placed = np.ones(order.size, dtype=bool)  # the first key of each home takes the slot
        placed[1:] = sorted_home[1:] != sorted_home[:-1]
        crowded = np.zeros(order.size, dtype=bool)  # ... and is flagged if another follows
        crowded[:-1] = placed[:-1] & ~placed[1:]
        mine, others = order[placed], order[~placed]
        slots = np.zeros(3 << bits, dtype=np.uint64)
        at = 3 * home[mine]
        slots[at] = k1[mine]
        slots[at + 1] = k2[mine] | np.where(crowded[placed], _FLAG, np.uint64(0))
        slots[at + 2] = tids[mine].astype(np.uint64)
        return cls(
            slots=slots,
            shift=shift,
            overflow=_Buckets.build(k1[others], k2[others], tids[others]),
            longest=longest,
            starts=starts,
            pair_ids=pair_ids,
            byte_ids=byte_ids,
            long=LongTokens.build(blob, offsets, sizes, every),
        )

    def find(self, k1: np.ndarray, k2: np.ndarray) -> np.ndarray:
        """Token id of each key pair, -1 where no token has those bytes."""
        at = _home(k1, k2, self.shift)  # in place from here: two word-sized arrays in all
        at *= 3
        at += 1
        word = self.slots.take(at)
        flagged = word >= _FLAG
        word &= _UNFLAG
        hit = word == k2
        at -= 1
        np.take(self.slots, at, out=word)
        hit &= word == k1
        at += 2
        np.take(self.slots, at, out=word)
        out = word.view(np.int64)
        np.logical_not(hit, out=hit)
        out[hit] = -1
        hit &= flagged
        more = np.flatnonzero(hit)
        if more.size:
            out[more] = self.overflow.find(k1[more], k2[more])
        return out
