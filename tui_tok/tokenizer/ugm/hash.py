"""An exact numpy hash table of the UGM trie tokens, so substrings are looked up in bulk.

``ugm/batch.py`` asks, for hundreds of thousands of (position, length) pairs of a joined text,
which trie token (if any) is that substring. A Python dict costs a new string and a hashed
probe per pair; here each pair becomes a 64-bit key computed with array arithmetic and is
found by vectorised linear probing.

Keys, over code points ``c`` (each ``c + 1`` so that NUL counts):

* up to 3 characters: the code points packed, 21 bits each, ``(c0+1) | (c1+1) << 21 |
  (c2+1) << 42``: exact (different strings, different keys; the length shows in the key);
* 4 characters or more: the polynomial ``sum((c_m + 1) * R**m) mod 2**64``. Over a joined text
  with prefix sums ``G[k] = sum_{j<k} (c_j + 1) * R**j`` the key of ``text[i:i+L]`` is
  ``(G[i+L] - G[i]) * R**-i`` (``R`` odd, so invertible mod 2**64).

Polynomial keys have bit 63 set, which packed keys (63 bits) never have.

Exactness: the keys of all tokens are made distinct and non-zero (0 marks an empty slot) when
the table is built (another ``R`` is tried otherwise), so a substring can only be the token
stored under its key. A packed key is the text itself; a polynomial hit is kept only if the
token has the same length and code points (checked in bulk): a hash collision costs time,
never a wrong id.

Two more tables of the same layout, both over packed pairs of code points: the longest token
starting with each two characters (``reach``: how many lengths to look up at a position), and
every two characters side by side in the joined token texts (``joined``: where no token can
cross, so ``ugm/pieces.py`` may cut).

Does not search: see ``ugm/batch.py``.

>>> cps = text_code_points("abx" + "abcd")  # token texts: "ab" (id 0), "x" (1), "abcd" (2)
>>> h = build_token_hash(cps, np.array([0, 2, 3]), np.array([2, 1, 4]), np.arange(3), np.zeros(0, np.uint64), np.zeros(0))
>>> [g.tolist() for g in h.find(text_code_points("xabcd"), [(1, np.array([0])), (2, np.array([1, 2])), (4, np.array([1]))])]
[[1], [0, -1], [2]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

_FIB = np.uint64(0x9E3779B97F4A7C15)
_RADICES = (0xA0761D6478BD642F, 0xE7037ED1A0B428DB, 0x8EBC6AF09C88C6E3, 0x589965CC75374CC3)
_HORNER_MAX = 64  # longer tokens (rare) take the prefix sums: one numpy pass per character is slow
_LONG = np.uint64(1 << 63)  # set in every polynomial key, never in a packed one (63 bits)


@dataclass(frozen=True, slots=True, eq=False)
class TokenHash:
    """Open-addressing table (linear probing, no wrap-around) from substring key to token id."""

    keys: np.ndarray
    """uint64 key per slot; 0 for an empty slot (no token's key is 0)."""
    ids: np.ndarray
    """Token id per slot (int64), -1 for an empty slot."""
    lengths: np.ndarray
    """Token length in characters, by token id (int64)."""
    starts: np.ndarray
    """Where the token's code points start in ``code_points``, by token id (int64)."""
    code_points: np.ndarray
    """All tokens' code points, joined (int64)."""
    radix: int
    """``R`` of the polynomial keys."""
    shift: np.uint64
    """64 - log2(nominal slot count): a key's home slot is ``(key * golden) >> shift``."""
    pair_keys: np.ndarray
    """Second table, same layout: packed key of each first-two-characters of a token (uint64)."""
    pair_reach: np.ndarray
    """Longest token starting with those two characters, per slot of ``pair_keys``."""
    pair_shift: np.uint64
    """``shift`` of the second table."""
    bigram_keys: np.ndarray
    """Third table, same layout: packed key of every two adjacent characters of the joined
    token texts (uint64), so of every pair inside a token: a boundary between two characters
    that are no such pair is crossed by no token."""
    bigram_shift: np.uint64
    """``shift`` of the third table."""

    def joined(self, cps: np.ndarray) -> np.ndarray:
        """Per boundary ``1..len(cps)-1`` of the text, whether its two characters appear side by
        side in some token (False: no token crosses it), where ``cps = text_code_points(text)``."""
        if cps.size < 2:
            return np.zeros(0, dtype=bool)
        one = np.uint64(1)
        key = (cps[:-1].astype(np.uint64) + one) | ((cps[1:].astype(np.uint64) + one) << np.uint64(21))
        return _probe(self.bigram_keys, self.bigram_shift, key) >= 0

    def reach(self, cps: np.ndarray) -> np.ndarray:
        """Per position of the text, the longest token starting with the two characters there
        (0: none, and at the last position), where ``cps = text_code_points(text)``."""
        out = np.zeros(cps.size, dtype=np.int64)
        if cps.size > 1:
            one = np.uint64(1)
            key = (cps[:-1].astype(np.uint64) + one) | ((cps[1:].astype(np.uint64) + one) << np.uint64(21))
            slot = _probe(self.pair_keys, self.pair_shift, key)
            hit = slot >= 0
            out[:-1][hit] = self.pair_reach[slot[hit]]
        return out

    def find(self, cps: np.ndarray, groups: Sequence[tuple[int, np.ndarray]]) -> list[np.ndarray]:
        """Per group ``(length, positions)``: the token id of ``text[p:p+length]`` at each
        position (-1: no trie token), where ``cps = text_code_points(text)``."""
        key = _group_keys(cps, groups, self.radix)
        found = _probe(self.keys, self.shift, key)
        at = np.flatnonzero(found >= 0)
        found[at] = self.ids[found[at]]
        out = []
        first = 0
        for n, p in groups:
            got = found[first : first + p.size]
            first += p.size
            if n > 3:  # a polynomial key matched: check the text itself
                at = np.flatnonzero(got >= 0)
                if at.size:
                    tid = got[at]
                    same = self._same_text(cps, p[at], n, tid)
                    got[at[~same]] = -1
            out.append(got)
        return out

    def _same_text(self, cps: np.ndarray, pos: np.ndarray, length: int, ids: np.ndarray) -> np.ndarray:
        """Whether ``cps[pos:pos+length]`` is the text of token ``ids``, per pair."""
        same = self.lengths[ids] == length
        starts = self.starts[ids]
        for k in range(length):
            same &= cps[pos + k] == self.code_points[np.minimum(starts + k, self.code_points.size - 1)]
        return same


def _probe(table: np.ndarray, shift: np.uint64, key: np.ndarray) -> np.ndarray:
    """Slot of each key in ``table`` (linear probing from its home slot), -1 if absent."""
    slot = ((key * _FIB) >> shift).astype(np.int64)
    stored = table[slot]
    hit = stored == key
    found = np.where(hit, slot, -1)
    going = ~hit & (stored != 0)  # key 0 marks an empty slot: the probe ends there
    todo = np.flatnonzero(going)
    while todo.size:
        slot = slot[going] + 1
        stored = table[slot]
        hit = stored == key[todo]
        found[todo[hit]] = slot[hit]
        going = ~hit & (stored != 0)
        todo = todo[going]
    return found


def _place(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.uint64, int] | None:
    """Layout of distinct non-zero ``keys`` (None if some are equal or zero): (slot of each
    key, the order keys were placed in, shift, table size with room to probe past the end).

    In order of home slot, key ``k`` lands at ``max(home_k, slot_{k-1} + 1)``, that is
    ``k + cummax(home - k)``: linear probing without a probe loop, and without wrap-around.
    """
    count = int(keys.size)
    size = 1 << max(4, (2 * max(count, 1) - 1).bit_length() + 1)  # load <= 1/4
    shift = np.uint64(64 - (size.bit_length() - 1))
    mixed = keys * _FIB  # a bijection: equal keys <=> equal mixed keys
    order = np.argsort(mixed)
    mixed = mixed[order]
    if (keys == 0).any() or (count > 1 and (mixed[1:] == mixed[:-1]).any()):
        return None
    home = (mixed >> shift).astype(np.int64)
    rank = np.arange(count, dtype=np.int64)
    slot = rank + np.maximum.accumulate(home - rank) if count else home
    return slot, order, shift, max(size, int(slot[-1]) + 2 if count else 0)


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


def span_keys(cps: np.ndarray, starts: np.ndarray, sizes: np.ndarray, radix: int = _RADICES[0]) -> np.ndarray:
    """Polynomial key of each span ``cps[starts[k] : starts[k] + sizes[k]]`` (uint64): equal
    spans get equal keys; different spans almost surely differ (callers check the text)."""
    sums, powers = _prefix_sums(radix, cps)
    m = cps.size
    back = np.uint64(pow(radix, 1 - m, 1 << 64)) if m else np.uint64(1)
    return (sums[starts + sizes] - sums[starts]) * (powers[m - 1 - starts] * back)


def _group_keys(cps: np.ndarray, groups: Sequence[tuple[int, np.ndarray]], radix: int) -> np.ndarray:
    """The keys of ``text[p:p+length]`` for every group ``(length, positions)``, concatenated
    (uint64), where ``cps = text_code_points(text)``."""
    one = np.uint64(1)
    keys = []
    if any(n > 3 for n, _ in groups):
        sums, powers = _prefix_sums(radix, cps)
        m = cps.size  # R**-p = R**(m-1-p) * R**-(m-1): one table of powers serves both ways
        back = np.uint64(pow(radix, 1 - m, 1 << 64))
    for n, p in groups:
        if n > 3:
            key = ((sums[p + n] - sums[p]) * (powers[m - 1 - p] * back)) | _LONG
        else:
            key = cps[p].astype(np.uint64) + one
            if n > 1:
                key |= (cps[p + 1].astype(np.uint64) + one) << np.uint64(21)
            if n == 3:
                key |= (cps[p + 2].astype(np.uint64) + one) << np.uint64(42)
        keys.append(key)
    return np.concatenate(keys) if keys else np.zeros(0, dtype=np.uint64)


def _token_keys(cps: np.ndarray, groups: Sequence[tuple[int, np.ndarray]], radix: int) -> np.ndarray:
    """``_group_keys`` for tokens, scattered in a long joined array: polynomial keys by Horner's
    rule over each group (cheaper than prefix sums over every code point)."""
    keys = []
    one = np.uint64(1)
    for n, p in groups:
        if n <= 3 or n > _HORNER_MAX:  # packed keys; or very long tokens: prefix sums
            keys.append(_group_keys(cps, [(n, p)], radix))
            continue
        key = cps[p].astype(np.uint64) + one
        for m in range(1, n):
            key += (cps[p + m].astype(np.uint64) + one) * np.uint64(pow(radix, m, 1 << 64))
        keys.append(key | _LONG)
    return np.concatenate(keys) if keys else np.zeros(0, dtype=np.uint64)


def build_token_hash(
    cps: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    ids: np.ndarray,
    pairs: np.ndarray,
    reach: np.ndarray,
) -> TokenHash:
    """The table of the tokens ``ids``, token ``t`` being ``cps[starts[t] : starts[t] +
    lengths[t]]`` (distinct texts, lengths >= 1; ``starts`` and ``lengths`` are by id), and
    the table of two-character prefixes: distinct ``pairs`` ``(first << 21) | second`` with
    the longest token length ``reach`` starting with each."""
    count = int(ids.size)
    length = lengths[ids]
    by_length = np.argsort(length.astype(np.int16) if count and length.max() < 1 << 15 else length, kind="stable")
    ids = ids[by_length]  # grouped by length: one key formula per group
    first = starts[ids]
    per_length = np.bincount(length, minlength=1).tolist() if count else [0]
    bounds = [0, *accumulate(per_length)]
    groups = [(n, first[bounds[n] : bounds[n + 1]]) for n in range(len(per_length)) if per_length[n]]
    for radix in _RADICES:
        keys = _token_keys(cps, groups, radix)
        placed = _place(keys)
        if placed is not None:
            break
    else:  # pragma: no cover - four 64-bit radices all colliding
        raise RuntimeError("no collision-free radix for the UGM token hash")
    slot, order, shift, total = placed
    one = np.uint64(1)
    packed = (pairs >> np.uint64(21)) + one | ((pairs & np.uint64(0x1FFFFF)) + one) << np.uint64(21)
    pair_slot, pair_order, pair_shift, pair_total = _place(packed)  # type: ignore[misc]
    bigrams = _bigrams(cps)
    big_slot, big_order, big_shift, big_total = _place(bigrams)  # type: ignore[misc]
    table = TokenHash(
        keys=np.zeros(total, dtype=np.uint64),
        ids=np.full(total, -1, dtype=np.int64),
        lengths=lengths,
        starts=starts,
        code_points=cps,
        radix=radix,
        shift=shift,
        pair_keys=np.zeros(pair_total, dtype=np.uint64),
        pair_reach=np.zeros(pair_total, dtype=np.int64),
        pair_shift=pair_shift,
        bigram_keys=np.zeros(big_total, dtype=np.uint64),
        bigram_shift=big_shift,
    )
    table.bigram_keys[big_slot] = bigrams[big_order]
    table.keys[slot] = keys[order]
    table.ids[slot] = ids[order]
    table.pair_keys[pair_slot] = packed[pair_order]
    table.pair_reach[pair_slot] = reach[pair_order]
    return table


def _bigrams(cps: np.ndarray) -> np.ndarray:
    """The distinct packed keys ``(a+1) | (b+1) << 21`` of every two characters side by side in
    ``cps`` (uint64): the tokens' code points, joined. Pairs across two tokens (or inside a
    token outside the trie) only make ``joined`` say True where no token crosses: a cut the
    search does not need, never a wrong one; and it takes no per-token bookkeeping."""
    if cps.size < 2:
        return np.zeros(0, dtype=np.uint64)
    c = cps.astype(np.uint64)
    c += np.uint64(1)
    keys = c[1:] << np.uint64(21)
    keys |= c[:-1]
    return _distinct(keys)


def _distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct values of non-zero ``keys`` (uint64), in no order.

    Few distinct values among many (45k bigrams in 1.1M for a 250k vocab): a table sized for
    them stays in cache. Each round scatters the keys left (the last writer of a slot wins),
    takes the winners out, and keeps the keys that differ from their slot's winner; equal keys
    share a slot, so every copy of a winner leaves with it.
    """
    bits = max(8, min(17, (2 * keys.size).bit_length()))
    shift = np.uint64(64 - bits)
    table = np.zeros(1 << bits, dtype=np.uint64)
    found = []
    attempt = 0
    while keys.size:
        salt = np.uint64(attempt * 0x5851F42D4C957F2D % (1 << 64))
        slot = (((keys ^ salt) * _FIB) >> shift).astype(np.int64)
        table[slot] = keys
        lost = table[slot] != keys
        won = np.flatnonzero(table)
        found.append(table[won])
        table[won] = 0
        keys = keys[lost]
        attempt += 1
    return np.concatenate(found) if found else np.zeros(0, dtype=np.uint64)
