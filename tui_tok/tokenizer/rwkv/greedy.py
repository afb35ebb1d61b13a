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

from dataclasses import dataclass

import numpy as np

from tui_tok.tokenizer.arrays.chunks import word_view

MAX_LEN = 15
"""Longest token (and chunk) this module handles: 8 + 7 bytes, the length in the top byte."""

_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)


def _keys(words: np.ndarray, at: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two words naming ``text[at:at+length]`` (1 <= length <= 15) for each pair."""
    first = words[at] & _MASKS[np.minimum(length, 8)]
    second = (words[at + 8] & _MASKS[np.maximum(length - 8, 0)]) | (length.astype(np.uint64) << np.uint64(56))
    return first, second


@dataclass(frozen=True, slots=True, eq=False)
class TokenTable:
    """Tokens of 1-15 bytes in an open-addressing hash table (linear probing), and the longest
    token starting with each byte pair."""

    first: np.ndarray
    """uint64 per slot: a token's first 8 bytes (zeros past its end)."""
    second: np.ndarray
    """uint64 per slot: its bytes 8-14 and its length in the top byte; 0 marks an empty slot."""
    ids: np.ndarray
    """int64 token id per slot."""
    shift: np.uint64
    """64 - log2(slots): the top bits of the mixed key are the home slot."""
    longest: np.ndarray
    """uint8[65536]: longest token (capped at 15) whose first two bytes are the pair (a << 8 | b)."""
    starts: np.ndarray
    """bool[256]: the bytes that start some token."""

    @classmethod
    def build(cls, token_ids: dict[bytes, int]) -> TokenTable:
        """From raw token bytes -> id (one id per distinct bytes, as the caller resolved them)."""
        raws = list(token_ids)
        every = np.fromiter(token_ids.values(), dtype=np.int64, count=len(raws))
        blob = b"".join(raws)
        sizes = np.fromiter(map(len, raws), dtype=np.int64, count=len(raws))
        offsets = np.cumsum(sizes) - sizes
        data = np.frombuffer(blob + b"\0", dtype=np.uint8).astype(np.int64)
        starts = np.zeros(256, dtype=bool)
        starts[data[offsets[sizes > 0]]] = True
        longest = np.zeros(1 << 16, dtype=np.uint8)
        pair = (data[offsets] << 8) | data[offsets + 1]
        for size in range(2, MAX_LEN + 1):  # ascending: the longest is written last
            longest[pair[sizes >= size]] = size
        keep = (sizes > 0) & (sizes <= MAX_LEN)
        k1, k2 = _keys(word_view(blob), offsets[keep], sizes[keep])
        tids = every[keep]
        bits = max(4, int(2 * max(tids.size, 1) - 1).bit_length())
        shift = np.uint64(64 - bits)
        # linear probing, filled in order of home slot: each key takes the first free slot from
        # its home on (a running maximum); the table runs past 2**bits instead of wrapping
        home = _home(k1, k2, shift)
        order = np.argsort(home, kind="stable")
        step = np.arange(tids.size, dtype=np.int64)
        slot = np.empty(tids.size, dtype=np.int64)
        slot[order] = np.maximum.accumulate(home[order] - step) + step if tids.size else step
        slots = max(1 << bits, int(slot.max(initial=0)) + 2)  # an empty slot ends every probe
        first = np.zeros(slots, dtype=np.uint64)
        second = np.zeros(slots, dtype=np.uint64)
        ids = np.full(slots, -1, dtype=np.int64)
        first[slot], second[slot], ids[slot] = k1, k2, tids
        return cls(first=first, second=second, ids=ids, shift=shift, longest=longest, starts=starts)

    def find(self, k1: np.ndarray, k2: np.ndarray) -> np.ndarray:
        """Token id of each key pair, -1 where no token has those bytes."""
        out = np.full(k1.size, -1, dtype=np.int64)
        slot = _home(k1, k2, self.shift)
        todo = np.arange(k1.size, dtype=np.int64)
        while todo.size:
            stored = self.second[slot]
            hit = (stored == k2[todo]) & (self.first[slot] == k1[todo])
            out[todo[hit]] = self.ids[slot[hit]]
            going = ~hit & (stored != 0)
            todo = todo[going]
            slot = slot[going] + 1
        return out


def _home(k1: np.ndarray, k2: np.ndarray, shift: np.uint64) -> np.ndarray:
    return (((k1 ^ (k2 * _K2)) * _K1) >> shift).astype(np.int64)


def greedy_chunks(
    text: bytes, at: np.ndarray, length: np.ndarray, table: TokenTable, *, unk_id: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """llama.cpp's greedy longest match on each chunk ``text[at[k]:at[k]+length[k]]`` (1 to 15
    bytes): all the ids, chunk after chunk, and how many each chunk has; None if some chunk
    holds a byte that starts a token but no token matches there (llama.cpp would hang)."""
    words = word_view(text)
    data = np.frombuffer(text + b"\0", dtype=np.uint8)
    count = at.size
    pos = np.zeros(count, dtype=np.int64)
    active = np.arange(count, dtype=np.int64)
    rounds: list[tuple[np.ndarray, np.ndarray]] = []  # per round: (chunk, id)
    while active.size:
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
    out = np.empty(int(counts.sum()), dtype=np.int64)
    place = np.cumsum(counts) - counts  # where each chunk's next token goes
    for chunk, found in rounds:
        out[place[chunk]] = found
        place[chunk] += 1
    return out, counts
