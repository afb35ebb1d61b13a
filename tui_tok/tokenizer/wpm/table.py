"""Token lookup for WPM in whole arrays: an exact hash table of token bytes, and llama.cpp's
greedy longest-prefix walk run for many words at once.

Why: llama.cpp looks every candidate substring up in its ``token_to_id`` map, in C++. Done per
word in Python that walk was slow, and the dict of every prefix of every token that made it
short took longer to build than llama.cpp's whole load. Here a substring of up to ``MAX_KEY``
bytes is named exactly by three 64-bit words (its bytes, zero-padded) and its length, so the
table is built from the token bytes with a few numpy passes and a lookup is a gather and four comparisons per probe, for thousands of substrings
per call.

The walk (``walk_words``) goes in rounds: every unfinished word tries, from where it stands,
all lengths from ``min(rest, max_len)`` down to 1 in one lookup; the longest hit is taken (what
llama.cpp's downward scan finds first). A word where some position has no hit is one unk.

A fast path: what it computes equals ``wpm/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).

>>> table = TokenTable.build([b"\\xe2\\x96\\x81ab", b"c", b"\\xe2\\x96\\x81a", b"bc"])
>>> table.max_len
5
>>> flat, sizes = table.walk_words(b"\\xe2\\x96\\x81abc\\xe2\\x96\\x81abx", [0, 6], [6, 12], unk_id=9)
>>> flat.tolist(), sizes.tolist()
([0, 1, 9], [2, 1])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MAX_KEY = 24
"""Longest substring a key names exactly (three 64-bit words). A vocab with a longer token is
not tabled (``TokenTable.build`` returns None): its words take the per-word walk."""

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [0xFFFFFFFFFFFFFFFF], dtype=np.uint64)
_M0 = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xC2B2AE3D27D4EB4F)
_M2 = np.uint64(0x165667B19E3779F9)
_M3 = np.uint64(0x27D4EB2F165667C5)
_PAD = 32
_HIGH = np.uint64(0x8080808080808080)
_LOW = np.uint64(0xFF)
_BLOCK = 32768
"""Keys per numpy pass in lookups: bounds the temporaries (256 KB each) of a 100k-word text;
measured on the 0.56 MB benchmark corpus, 4k-key blocks were slower (per-call overhead)."""
_TAIL_CHUNK = 1 << 15
"""Offsets per lookup in ``_walk_tail`` (x ``max_len`` candidates each)."""


def _view(data: bytes) -> np.ndarray:
    """uint64 of the 8 bytes from each offset of ``data`` (zeros past its end): a strided view."""
    padded = data + bytes(_PAD)
    return np.ndarray(shape=(len(data) + _PAD - 7,), dtype="<u8", buffer=padded, strides=(1,))


def _keys(view: np.ndarray, at: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three key words of the substrings ``at[k] : at[k] + lens[k]`` (lens <= MAX_KEY)."""
    k0 = view[at] & _MASKS[np.minimum(lens, 8)]
    k1 = view[at + 8] & _MASKS[np.minimum(np.maximum(lens - 8, 0), 8)]
    k2 = view[at + 16] & _MASKS[np.minimum(np.maximum(lens - 16, 0), 8)]
    return k0, k1, k2


def _mix(k0: np.ndarray, k1: np.ndarray, k2: np.ndarray, lens: np.ndarray) -> np.ndarray:
    return (k0 * _M0) ^ (k1 * _M1) ^ (k2 * _M2) ^ (lens.astype(np.uint64, copy=False) * _M3)


class TokenTable:
    """Token bytes -> id (the last id of equal texts wins, as llama.cpp's ``token_to_id``), for
    tokens of at most ``MAX_KEY`` bytes: an open-addressing hash table (linear probing) whose
    row holds the three key words and ``length | id << 8``, so a probe is one 32-byte read
    (lookups are bound by random reads: a bucket index and separate columns took ~7 a key)."""

    def __init__(self, rows: np.ndarray, bits: int, max_len: int) -> None:
        self._rows = rows
        self._shift = np.uint64(64 - bits)
        self.max_len = max_len

    @classmethod
    def build(cls, tokens: Sequence[bytes], *, unique: bool = False) -> TokenTable | None:
        """The table of ``tokens`` (bytes by id), or None if one is longer than ``MAX_KEY``.
        ``unique``: the caller knows no two are equal (a ``Vocab``'s are), so no check."""
        lens = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        max_len = int(lens.max()) if len(lens) else 0
        if max_len > MAX_KEY:
            return None
        ids = np.arange(len(tokens), dtype=np.int64)
        keep = lens > 0
        if not keep.all():
            lens, ids = lens[keep], ids[keep]
            tokens = [t for t in tokens if t]
        if not unique and len(set(tokens)) != len(tokens):  # the last id of equal texts wins
            last = np.array(sorted(dict(zip(tokens, range(len(tokens)))).values()), dtype=np.int64)
            lens, ids, tokens = lens[last], ids[last], [tokens[i] for i in last.tolist()]
        at = np.zeros(len(lens), dtype=np.int64)
        np.cumsum(lens[:-1], out=at[1:])
        k0, k1, k2 = _keys(_view(b"".join(tokens)), at, lens)
        bits = max(4, (4 * len(lens)).bit_length())  # at most a quarter full: short probe runs
        home = ((_mix(k0, k1, k2, lens) * _M0) >> np.uint64(64 - bits)).astype(np.int64)
        # linear probing, inserting in order of home row: each key takes its home row or the row
        # after the previous key's, whichever is later (a running maximum; no wrap-around)
        order = np.argsort(home)  # any order among equal homes does
        rank = np.arange(len(order), dtype=np.int64)
        pos = np.maximum.accumulate(home[order] - rank) + rank if len(order) else rank
        rows = np.zeros((max(1 << bits, int(pos[-1]) + 2 if len(pos) else 1), 4), dtype=np.uint64)
        meta = lens.astype(np.uint64) | (ids.astype(np.uint64) << np.uint64(8))  # never 0: 0 is empty
        rows[pos, 0], rows[pos, 1], rows[pos, 2], rows[pos, 3] = k0[order], k1[order], k2[order], meta[order]
        return cls(rows, bits, max_len)

    def lookup(self, k0: np.ndarray, k1: np.ndarray, k2: np.ndarray, lens: np.ndarray) -> np.ndarray:
        """int64 id of each key, -1 where no token has those bytes (in blocks: see ``_BLOCK``)."""
        n = len(k0)
        if n <= _BLOCK:
            return self._lookup(k0, k1, k2, lens)
        out = np.empty(n, dtype=np.int64)
        for lo in range(0, n, _BLOCK):
            hi = lo + _BLOCK
            out[lo:hi] = self._lookup(k0[lo:hi], k1[lo:hi], k2[lo:hi], lens[lo:hi])
        return out

    def _lookup(self, k0: np.ndarray, k1: np.ndarray, k2: np.ndarray, lens: np.ndarray) -> np.ndarray:
        rows = self._rows
        lens = lens.astype(np.uint64)
        mixed = k0 * _M0
        term = k1 * _M1
        mixed ^= term
        mixed ^= np.multiply(k2, _M2, out=term)
        mixed ^= np.multiply(lens, _M3, out=term)
        mixed *= _M0
        mixed >>= self._shift
        pos = mixed.view(np.int64)  # below 2**bits: the same value
        row = rows.take(pos, axis=0)
        meta = row[:, 3]
        hit = (row[:, 0] == k0) & (row[:, 1] == k1) & (row[:, 2] == k2) & ((meta & _LOW) == lens)
        out = np.where(hit, (meta >> np.uint64(8)).view(np.int64), -1)
        todo = np.flatnonzero((meta != 0) & ~hit)  # a full row of another key: probe on
        pos = pos[todo] + 1
        while len(todo):
            row = rows.take(pos, axis=0)
            meta = row[:, 3]
            hit = ((row[:, 0] == k0[todo]) & (row[:, 1] == k1[todo]) & (row[:, 2] == k2[todo])
                   & ((meta & _LOW) == lens[todo]))  # fmt: skip
            out[todo[hit]] = (meta[hit] >> np.uint64(8)).view(np.int64)
            more = (meta != 0) & ~hit
            todo, pos = todo[more], pos[more] + 1
        return out

    def whole_words(self, data: bytes, starts: np.ndarray, ends: np.ndarray, prefix: bytes) -> np.ndarray:
        """The id of ``prefix + data[starts[w] : ends[w]]`` for each word that is plain ASCII;
        -1 where that is no token, or the word has a byte >= 0x80 (it needs normalising), or
        the whole is longer than ``max_len``. Needs ``len(prefix) < 8``; no ``bytes`` per word."""
        view = _view(data)
        at = np.asarray(starts, dtype=np.int64)
        size = np.asarray(ends, dtype=np.int64) - at
        out = np.empty(len(at), dtype=np.int64)
        for lo in range(0, len(at), _BLOCK):
            hi = lo + _BLOCK
            out[lo:hi] = self._whole_words(view, at[lo:hi], size[lo:hi], prefix)
        return out

    def _whole_words(self, view: np.ndarray, at: np.ndarray, size: np.ndarray, prefix: bytes) -> np.ndarray:
        """``whole_words`` of one block; in place where numpy allows (a fresh array is fresh pages:
        in a new process those faults cost more than the arithmetic)."""
        p = len(prefix)
        lens = size + p
        index = np.minimum(lens, 8)
        mask = _MASKS.take(index)
        k0 = view[at]
        k0 <<= np.uint64(8 * p)
        k0 |= np.uint64(int.from_bytes(prefix, "little"))
        k0 &= mask
        keys = [k0]
        for skip in (8, 16):
            np.add(at, skip - p, out=index)
            word = view[index]
            np.subtract(lens, skip, out=index)
            np.maximum(index, 0, out=index)
            np.minimum(index, 8, out=index)
            word &= _MASKS.take(index, out=mask)
            keys.append(word)
        k1, k2 = keys[1], keys[2]
        high = np.right_shift(k0, np.uint64(8 * p), out=mask)  # the word's own bytes in k0
        high |= k1
        high |= k2
        high &= _HIGH
        ask = np.flatnonzero((high == 0) & (lens <= self.max_len))
        ids = np.full(len(at), -1, dtype=np.int64)
        if len(ask):
            ids[ask] = self._lookup(k0[ask], k1[ask], k2[ask], lens[ask])
        return ids

    def walk_words(
        self,
        data: bytes,
        starts: Sequence[int] | np.ndarray,
        ends: Sequence[int] | np.ndarray,
        *,
        unk_id: int,
        tail_max: int = 48,
    ) -> tuple[np.ndarray, np.ndarray]:
        """llama.cpp's WPM walk of every word ``data[starts[w] : ends[w]]`` (non-empty, ``▁``
        already prefixed, normalised): the ids of all words in order, and each word's count.
        At most ``tail_max`` unfinished words (``Paths.wpm_tail_max``) finish in one lookup
        (``_walk_tail``)."""
        view = _view(data)
        begin = np.asarray(starts, dtype=np.int64)
        end = np.asarray(ends, dtype=np.int64)
        n_words = len(begin)
        pos = begin.copy()
        active = np.arange(n_words, dtype=np.int64)
        failed = np.zeros(n_words, dtype=bool)
        got_word: list[np.ndarray] = []
        got_id: list[np.ndarray] = []
        whole = np.flatnonzero(end - begin <= self.max_len)  # first the whole word (most are)
        if len(whole):
            lens = end[whole] - begin[whole]
            ids = self.lookup(*_keys(view, begin[whole], lens), lens)
            done = ids >= 0
            got_word.append(whole[done])
            got_id.append(ids[done])
            rest = np.ones(n_words, dtype=bool)
            rest[whole[done]] = False
            active = np.flatnonzero(rest)
        while len(active) > tail_max:
            at = pos[active]
            lens, hits, hit_owner, ids = self._longest(view, at, end[active] - at)
            matched = np.zeros(len(active), dtype=bool)
            matched[hit_owner] = True
            failed[active[~matched]] = True
            words = active[hit_owner]
            got_word.append(words)
            got_id.append(ids[hits])
            pos[words] += lens[hits]
            active = words[pos[words] < end[words]]
        if len(active):  # a few long words left: one lookup for all their positions
            tail_word, tail_id = self._walk_tail(view, pos, end, active, failed)
            got_word.append(tail_word)
            got_id.append(tail_id)
        if not got_word:
            return np.zeros(0, dtype=np.int64), np.zeros(n_words, dtype=np.int64)
        word = np.concatenate(got_word)
        tid = np.concatenate(got_id)
        if failed.any():  # such a word is one unk, whatever it matched before
            keep = ~failed[word]
            word, tid = word[keep], tid[keep]
            bad = np.flatnonzero(failed)
            word = np.concatenate([word, bad])
            tid = np.concatenate([tid, np.full(len(bad), unk_id, dtype=np.int64)])
        order = np.argsort(word, kind="stable")  # rounds were appended in order: stable keeps it
        return tid[order], np.bincount(word, minlength=n_words)

    def _longest(
        self, view: np.ndarray, at: np.ndarray, rest: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The longest token at each offset ``at[k]`` (at most ``rest[k]`` bytes): all lengths
        from ``min(rest, max_len)`` down to 1 looked up at once. Returns every candidate's length,
        the candidate index of each offset's longest hit, that offset's index, and all ids."""
        most = np.minimum(rest, self.max_len)
        first = np.zeros(len(at), dtype=np.int64)
        np.cumsum(most[:-1], out=first[1:])
        total = int(first[-1] + most[-1])
        owner = np.repeat(np.arange(len(at), dtype=np.int64), most)
        lens = np.arange(total, dtype=np.int64) - first[owner]
        np.subtract(most[owner], lens, out=lens)  # most, most - 1, ..., 1 per offset
        ids = self.lookup(*_keys(view, at[owner], lens), lens)
        hits = np.flatnonzero(ids >= 0)
        hit_owner = owner[hits]
        lead = np.ones(len(hits), dtype=bool)  # candidates are longest first: the first hit
        lead[1:] = hit_owner[1:] != hit_owner[:-1]
        return lens, hits[lead], hit_owner[lead], ids

    def _walk_tail(
        self, view: np.ndarray, pos: np.ndarray, end: np.ndarray, active: np.ndarray, failed: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Finish the ``active`` words (a few, maybe long: one token a round would be one lookup
        a token): the longest token at every offset of their rests in one lookup, then each walk
        follows those in Python. Marks unks in ``failed``; returns (word, id) of each match."""
        size = end[active] - pos[active]
        first = np.zeros(len(active), dtype=np.int64)
        np.cumsum(size[:-1], out=first[1:])
        owner = np.repeat(np.arange(len(active), dtype=np.int64), size)
        at = pos[active][owner] + np.arange(int(size.sum()), dtype=np.int64) - first[owner]
        rest = end[active][owner] - at
        best_len = np.zeros(len(at), dtype=np.int64)
        best_id = np.zeros(len(at), dtype=np.int64)
        for lo in range(0, len(at), _TAIL_CHUNK):  # bounded memory for a huge word
            hi = lo + _TAIL_CHUNK
            lens, hits, hit_owner, ids = self._longest(view, at[lo:hi], rest[lo:hi])
            best_len[hit_owner + lo] = lens[hits]
            best_id[hit_owner + lo] = ids[hits]
        step, tid = best_len.tolist(), best_id.tolist()
        words: list[int] = []
        out: list[int] = []
        for word, lo, n in zip(active.tolist(), first.tolist(), size.tolist()):
            i = 0
            got: list[int] = []
            while i < n:
                length = step[lo + i]
                if not length:
                    failed[word] = True
                    break
                got.append(tid[lo + i])
                i += length
            words += [word] * len(got)
            out += got
        return np.array(words, dtype=np.int64), np.array(out, dtype=np.int64)
