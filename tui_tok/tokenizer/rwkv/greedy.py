"""RWKV's greedy longest match for many short chunks at once, in numpy.

``rwkv/encoder.py`` cuts a text into chunks that no token crosses (137k of them in 0.56 MB of
mixed text). Nearly all are at most 15 bytes long, and so is every token that fits in one.
Such a substring is named exactly by two 64-bit words (its first 8 bytes; the next 7 and its
length), so "which token is ``text[o:o+L]``" is a probe in an open-addressing hash table of
the tokens of up to 15 bytes, done for every chunk together:

1. each round takes, at every unfinished chunk's current offset, the longest token: the
   length ``min(rest of the chunk, longest token starting with these two bytes)`` first (for
   most chunks the whole chunk, a token), then every shorter length of the chunks that missed
   in one probe, all chunks advancing together; a byte that starts no token is the unk id, a byte
   that starts one that never matches makes the round give up (``None``: the caller's walk
   raises llama.cpp's error);
2. the ids are written straight to their place in the output: a chunk's tokens follow the
   tokens of the chunks before it.

Same ids as ``RwkvEncoder._walk`` on each chunk (tested). Longer chunks are the caller's.

>>> table = TokenTable.build({b"a": 0, b"ab": 1, b"b": 2, b"abc": 3})
>>> text = b"abcab" + b"ba"
>>> ids, counts = greedy_chunks(text, np.array([0, 3, 5]), np.array([3, 2, 2]), table, unk_id=-1)
>>> ids.tolist(), counts.tolist()
([3, 1, 2, 0], [1, 1, 2])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain

import numpy as np

from tui_tok.tokenizer.arrays.chunks import word_view
from tui_tok.tokenizer.rwkv.long import LongTokens

MAX_LEN = 15
"""Longest token (and chunk) this module handles: 8 + 7 bytes, the length in the top byte."""

_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_FIRST = _MASKS[np.minimum(np.arange(MAX_LEN + 1), 8)]
"""By length: the mask keeping a key's first word (its bytes 0-7 that belong to it)."""
_SECOND = _MASKS[np.maximum(np.arange(MAX_LEN + 1) - 8, 0)]
"""By length: the mask keeping its bytes 8-14."""
_TAG = np.arange(MAX_LEN + 1, dtype=np.uint64) << np.uint64(56)
"""By length: the length in the top byte of the second word."""
_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)


def _keys(words: np.ndarray, at: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


@dataclass(frozen=True, slots=True, eq=False)
class TokenTable:
    """Tokens of 1-15 bytes in a bucketed hash table, the longest token starting with each byte
    pair, and what tells where a longer token might start.

    Each bucket's tokens sit together (``start``), so a probe compares only the keys that share
    its bucket: a miss in an empty bucket costs one compare, not a walk to the end of a cluster
    as in linear probing (where the longest cluster set how many rounds every ``find`` took)."""

    first: np.ndarray
    """uint64 per slot: a token's first 8 bytes (zeros past its end)."""
    second: np.ndarray
    """uint64 per slot: its bytes 8-14 and its length in the top byte; one 0 slot at the end."""
    ids: np.ndarray
    """int64 token id per slot."""
    start: np.ndarray
    """int64[buckets]: bucket b's tokens are the slots from ``start[b]`` on..."""
    fill: np.ndarray
    """uint8[buckets]: ...and there are this many (rarely more than 6)."""
    shift: np.uint64
    """64 - log2(buckets): the top bits of the mixed key are the bucket."""
    longest: np.ndarray
    """uint8[65536]: longest token (capped at 15) whose first two bytes are the pair (a << 8 | b)."""
    starts: np.ndarray
    """bool[256]: the bytes that start some token."""
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
        data = np.frombuffer(blob + b"\0", dtype=np.uint8).astype(np.int64)
        starts = np.zeros(256, dtype=bool)
        starts[data[offsets[sizes > 0]]] = True
        pair = (data[offsets] << 8) | data[offsets + 1]
        two = sizes >= 2
        longest = np.zeros(1 << 16, dtype=np.uint8)
        np.maximum.at(longest, pair[two], np.minimum(sizes[two], MAX_LEN).astype(np.uint8))
        words = word_view(blob)
        keep = (sizes > 0) & (sizes <= MAX_LEN)
        k1, k2 = _keys(words, offsets[keep], sizes[keep])
        tids = every[keep]
        bits = max(4, int(max(tids.size, 1)).bit_length() + 1)  # at most half as many tokens as buckets
        shift = np.uint64(64 - bits)
        home = _home(k1, k2, shift)
        low = int(tids.size).bit_length()
        order = np.sort((home << low) | np.arange(tids.size, dtype=np.int64)) & ((1 << low) - 1)  # by bucket
        fill = np.bincount(home, minlength=1 << bits)
        start = np.cumsum(fill) - fill
        return cls(
            first=np.append(k1[order], np.uint64(0)),
            second=np.append(k2[order], np.uint64(0)),  # 0 is no key's second word (length >= 1)
            ids=np.append(tids[order], -1),
            start=start,
            fill=fill.astype(np.uint8) if fill.size and fill.max() < 256 else fill,
            shift=shift,
            longest=longest,
            starts=starts,
            long=LongTokens.build(blob, offsets, sizes, every),
        )

    def find(self, k1: np.ndarray, k2: np.ndarray) -> np.ndarray:
        """Token id of each key pair, -1 where no token has those bytes.

        Round j compares each key with its bucket's j-th token. Equal keys have the same bucket,
        so a compare with a slot past the bucket's end (an empty bucket's ``start`` is the next
        bucket's first slot) can never give a false hit; the loop only stops at the bucket end."""
        home = _home(k1, k2, self.shift)
        lo = self.start.take(home)
        hit = self.second.take(lo) == k2
        hit &= self.first.take(lo) == k1
        out = np.where(hit, self.ids.take(lo), -1)
        left = self.fill.take(home)  # tokens in the bucket
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


def _home(k1: np.ndarray, k2: np.ndarray, shift: np.uint64) -> np.ndarray:
    """The bucket of each key: the top bits of a multiplicative mix (in place: one temporary)."""
    mixed = k2 * _K2
    mixed ^= k1
    mixed *= _K1
    mixed >>= shift
    return mixed.view(np.int64)


_FEW = 64
"""With this many chunks or fewer still unfinished, ``finish`` walks the rest in Python: a round
costs ~0.15 ms however few chunks it has, and the last rounds (a few long chunks) have few."""


def spread(first: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Every index ``first[k] + i`` for ``i < counts[k]``, in order."""
    total = int(counts.sum())
    return np.arange(total, dtype=np.int64) + np.repeat(first - (np.cumsum(counts) - counts), counts)


def greedy_chunks(
    text: bytes,
    at: np.ndarray,
    length: np.ndarray,
    table: TokenTable,
    *,
    unk_id: int,
    finish: Callable[[bytes], list[int]] | None = None,
    words: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """llama.cpp's greedy longest match on each chunk ``text[at[k]:at[k]+length[k]]``: all the
    ids, chunk after chunk, and how many each chunk has; None if some chunk holds a byte that
    starts a token but no token matches there (llama.cpp would hang). ``finish`` (the same
    match on one text, in Python) takes over the last few chunks (``_FEW``). ``words``: the
    text's ``word_view``, or a contiguous copy of it (faster gathers)."""
    if words is None:
        words = word_view(text)
    data = np.frombuffer(text + b"\0", dtype=np.uint8)
    count = at.size
    pos = np.zeros(count, dtype=np.int64)
    active = np.arange(count, dtype=np.int64)
    may_be_long = bool(count) and int(length.max()) > MAX_LEN and table.long.heads.size > 0
    rounds: list[tuple[np.ndarray, np.ndarray]] = []  # per round: (chunk, id)
    tail: list[list[int]] = []
    while active.size:
        if finish is not None and active.size <= _FEW:
            ends = (at[active] + length[active]).tolist()
            tail = [finish(text[a:b]) for a, b in zip((at[active] + pos[active]).tolist(), ends)]
            break
        here = at[active] + pos[active]
        rest = length[active] - pos[active]
        pair = (data[here].astype(np.int64) << 8) | data[here + 1]
        size = np.minimum(rest, np.maximum(table.longest[pair], 1))
        found = table.find(*_keys(words, here, size))  # the longest candidate first: mostly a hit
        took = size.copy()
        miss = np.flatnonzero((found < 0) & (size > 1))
        if miss.size:  # every shorter length of every miss at once, longest first per chunk
            tries = size[miss] - 1
            which = np.repeat(miss, tries)
            step = np.arange(which.size, dtype=np.int64) - np.repeat(np.cumsum(tries) - tries, tries)
            shorter = np.repeat(tries, tries) - step
            tid = table.find(*_keys(words, here[which], shorter))
            hit = np.flatnonzero(tid >= 0)
            first = np.ones(hit.size, dtype=bool)  # the first hit of each chunk is its longest
            first[1:] = which[hit[1:]] != which[hit[:-1]]
            hit = hit[first]
            found[which[hit]] = tid[hit]
            took[which[hit]] = shorter[hit]
        if may_be_long:  # a token longer than 15 bytes, where one starts, is the longest match
            risky = np.flatnonzero(table.long.pairs[pair] & (rest > MAX_LEN))
            k, tid, took_long = table.long.matches(words, here[risky], rest[risky])
            found[risky[k]] = tid
            took[risky[k]] = took_long
        took[found < 0] = 1
        lost = found < 0
        if lost.any():
            if table.starts[data[here[lost]]].any():
                return None
            found[lost] = unk_id
        rounds.append((active, found))
        pos[active] += took
        active = active[pos[active] < length[active]]
    counts = np.zeros(count, dtype=np.int64)
    for chunk, _ in rounds:
        counts[chunk] += 1
    tail_counts = np.fromiter(map(len, tail), dtype=np.int64, count=len(tail))
    if tail:
        counts[active] += tail_counts
    out = np.empty(int(counts.sum()), dtype=np.int64)
    place = np.cumsum(counts) - counts  # where each chunk's next token goes
    for chunk, found in rounds:
        out[place[chunk]] = found
        place[chunk] += 1
    if tail:
        out[spread(place[active], tail_counts)] = np.fromiter(chain.from_iterable(tail), dtype=np.int64)
    return out, counts
