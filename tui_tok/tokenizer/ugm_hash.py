"""An exact numpy hash table of the UGM trie tokens, so substrings are looked up in bulk.

``ugm_batch.py`` asks, for hundreds of thousands of (position, length) pairs of a joined text,
which trie token (if any) is that substring. A Python dict costs a new string and a hashed
probe per pair; here each pair becomes a 64-bit key computed with array arithmetic and is
found by vectorised linear probing.

Keys, over code points ``c`` (each ``c + 1`` so that NUL counts):

* up to 3 characters: the code points packed, 21 bits each, ``(c0+1) | (c1+1) << 21 |
  (c2+1) << 42``: exact (different strings, different keys; the length shows in the key);
* 4 characters or more: the polynomial ``sum((c_m + 1) * R**m) mod 2**64``. Over a joined text
  with prefix sums ``G[k] = sum_{j<k} (c_j + 1) * R**j`` the key of ``text[i:i+L]`` is
  ``(G[i+L] - G[i]) * R**-i`` (``R`` odd, so invertible mod 2**64).

Exactness: the keys of all tokens are made distinct and non-zero (0 marks an empty slot) when
the table is built (another ``R`` is tried otherwise), so a substring can only be the token stored under its key. A hit is kept
if the lengths agree and, for 4 characters or more, if the code points agree (checked in bulk):
a hash collision costs time, never a wrong id.

Does not search: see ``ugm_batch.py``.

>>> h = build_token_hash(["ab", "abcd", "x"], [5, 6, 7])
>>> cps = text_code_points("xabcd")
>>> h.lookup(cps, np.array([0, 1, 1, 2]), np.array([1, 2, 4, 2])).tolist()
[7, 5, 6, -1]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_FIB = np.uint64(0x9E3779B97F4A7C15)
_RADICES = (0xA0761D6478BD642F, 0xE7037ED1A0B428DB, 0x8EBC6AF09C88C6E3, 0x589965CC75374CC3)
_MASK = (1 << 64) - 1


@dataclass(frozen=True, slots=True, eq=False)
class TokenHash:
    """Open-addressing table (linear probing, no wrap-around) from substring key to token id."""

    keys: np.ndarray
    """uint64 key per slot; 0 for an empty slot (no token's key is 0)."""
    ids: np.ndarray
    """Token id per slot (int64), -1 for an empty slot."""
    lengths: np.ndarray
    """Token length in characters per slot (int64)."""
    starts: np.ndarray
    """Where the token's code points start in ``code_points`` per slot (int64)."""
    code_points: np.ndarray
    """All tokens' code points, joined (int64)."""
    radix: int
    """``R`` of the polynomial keys."""
    shift: np.uint64
    """64 - log2(nominal slot count): a key's home slot is ``(key * golden) >> shift``."""

    def lookup(self, cps: np.ndarray, pos: np.ndarray, length: np.ndarray) -> np.ndarray:
        """Token id of ``text[pos:pos+length]`` for each pair (-1: no trie token), where
        ``cps = text_code_points(text)``."""
        sums, powers = _prefix_sums(self.radix, cps) if length.size and int(length.max()) > 3 else (cps, cps)
        key = _keys(cps, sums, powers, pos, length, self.radix)
        found = np.full(key.size, -1, dtype=np.int64)
        if key.size == 0:
            return found
        slot = ((key * _FIB) >> self.shift).astype(np.int64)
        stored = self.keys[slot]
        hit = stored == key
        found[hit] = slot[hit]  # the slot for now; checked below
        going = ~hit & (stored != 0)  # key 0 marks an empty slot: the probe ends there
        todo = np.flatnonzero(going)
        while todo.size:
            slot = slot[going] + 1
            stored = self.keys[slot]
            hit = stored == key[todo]
            found[todo[hit]] = slot[hit]
            going = ~hit & (stored != 0)
            todo = todo[going]
        at = np.flatnonzero(found >= 0)
        slots = found[at]
        good = self.lengths[slots] == length[at]
        long = good & (length[at] > 3)
        if long.any():
            good[long] = self._same_text(cps, pos[at[long]], self.starts[slots[long]], length[at[long]])
        found[at] = np.where(good, self.ids[slots], -1)
        return found

    def _same_text(self, cps: np.ndarray, pos: np.ndarray, starts: np.ndarray, length: np.ndarray) -> np.ndarray:
        """Whether ``cps[pos:pos+length]`` equals the token code points at ``starts``, per pair."""
        first = np.cumsum(length) - length
        step = np.arange(int(length.sum()), dtype=np.int64) - np.repeat(first, length)
        differ = cps[np.repeat(pos, length) + step] != self.code_points[np.repeat(starts, length) + step]
        return np.logical_or.reduceat(differ, first) == 0


def text_code_points(text: str) -> np.ndarray:
    """Code points of ``text`` as int64 (surrogates included)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.int64)


def _powers(radix: int, n: int) -> np.ndarray:
    """``radix**k mod 2**64`` for k in 0..n-1 (uint64; numpy wraps)."""
    out = np.full(n, radix, dtype=np.uint64)
    if n:
        out[0] = 1
    return np.cumprod(out, dtype=np.uint64)


def _prefix_sums(radix: int, cps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``G[k] = sum_{j<k} (cps[j] + 1) * R**j mod 2**64``, k in 0..len(cps), and the powers
    ``R**j`` (both uint64)."""
    out = np.zeros(cps.size + 1, dtype=np.uint64)
    powers = _powers(radix, cps.size)
    np.cumsum((cps.astype(np.uint64) + np.uint64(1)) * powers, out=out[1:])
    return out, powers


def _keys(
    cps: np.ndarray, sums: np.ndarray, powers: np.ndarray, pos: np.ndarray, length: np.ndarray, radix: int
) -> np.ndarray:
    """The key of ``text[pos:pos+length]`` per pair (uint64), from ``_prefix_sums(radix, cps)``
    (only read for pairs longer than 3)."""
    one = np.uint64(1)
    key = (cps[pos].astype(np.uint64) + one)
    if key.size == 0:
        return key
    longer = length >= 2
    if longer.any():
        key[longer] |= (cps[pos[longer] + 1].astype(np.uint64) + one) << np.uint64(21)
        three = length == 3
        if three.any():
            key[three] |= (cps[pos[three] + 2].astype(np.uint64) + one) << np.uint64(42)
        poly = length > 3
        if poly.any():
            p, n = pos[poly], length[poly]
            # R**-p = R**(m-p) * R**-m: one table of powers serves both directions
            m = int(p.max())
            scale = powers[m - p] * np.uint64(pow(radix, -m, 1 << 64))
            key[poly] = (sums[p + n] - sums[p]) * scale
    return key


def build_token_hash(texts: Sequence[str], ids: Sequence[int]) -> TokenHash:
    """The table of the given token texts (distinct, non-empty) and their ids."""
    count = len(texts)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=count)
    cps = text_code_points("".join(texts))
    return build_token_hash_arrays(cps, np.cumsum(lengths) - lengths, lengths, np.asarray(ids, dtype=np.int64))


def build_token_hash_arrays(cps: np.ndarray, starts: np.ndarray, lengths: np.ndarray, ids: np.ndarray) -> TokenHash:
    """The table of the tokens ``cps[starts[k] : starts[k] + lengths[k]]`` (distinct texts,
    lengths >= 1) with ids ``ids[k]``.

    Linear probing without a probe loop: in order of home slot, token ``k`` lands at
    ``max(home_k, slot_{k-1} + 1)``, that is ``k + cummax(home - k)``; slots past the nominal
    size are kept (no wrap-around), followed by one empty slot so every probe ends.
    """
    count = int(lengths.size)
    size = 1 << max(4, (2 * max(count, 1) - 1).bit_length() + 1)  # load <= 1/4
    shift = np.uint64(64 - (size.bit_length() - 1))
    for radix in _RADICES:
        sums, powers = _prefix_sums(radix, cps)
        keys = _keys(cps, sums, powers, starts, lengths, radix)
        mixed = keys * _FIB  # a bijection: equal keys <=> equal mixed keys
        order = np.argsort(mixed)
        mixed = mixed[order]
        if not (keys == 0).any() and (count < 2 or not (mixed[1:] == mixed[:-1]).any()):
            break
    else:  # pragma: no cover - four 64-bit radices all colliding
        raise RuntimeError("no collision-free radix for the UGM token hash")
    home = (mixed >> shift).astype(np.int64)
    rank = np.arange(count, dtype=np.int64)
    slot = rank + np.maximum.accumulate(home - rank) if count else home
    total = max(size, int(slot[-1]) + 2 if count else 0)
    table = TokenHash(
        keys=np.zeros(total, dtype=np.uint64),
        ids=np.full(total, -1, dtype=np.int64),
        lengths=np.zeros(total, dtype=np.int64),
        starts=np.zeros(total, dtype=np.int64),
        code_points=cps,
        radix=radix,
        shift=shift,
    )
    table.keys[slot] = keys[order]
    table.ids[slot] = ids[order]
    table.lengths[slot] = lengths[order]
    table.starts[slot] = starts[order]
    return table
