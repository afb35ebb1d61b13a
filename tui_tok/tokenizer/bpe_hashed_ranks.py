"""Merge ranks for many lookups at once, from a numpy hash table instead of a dict.

A ``"left right" -> rank`` dict of gemma-4's 515k merges costs ~0.25 s to build here, most of it
inserting; the batch merge (``bpe_batch.py``) then asks it for a few tens of thousands of pairs.
This index hashes every merge string once (Python's own ``hash``) and places the hashes in an
open-addressing table (linear probing, load <= 1/2) with whole-array rounds: in each round every
unplaced merge bids for its next slot and the lowest rank among the bidders for a free slot gets
it. A lookup probes the same way, all keys at once, and checks the merge string itself at every
slot whose hash matches, so the answer is exact whatever collides. Merges with one hash bid for
the same slots in the same order and the lower rank always wins, so probing meets them in rank
order: the first string that matches has the lowest rank, the one llama.cpp's ``emplace`` keeps.
"""

from __future__ import annotations

from operator import eq

import numpy as np

_EMPTY = -1


class HashedRanks:
    """Exact lowest index of a key in ``merges``, for batches of keys."""

    def __init__(self, merges: list[str]) -> None:
        self._merges = merges
        n = len(merges)
        size = 1 << max(4, (2 * n).bit_length())
        self._mask = size - 1
        self._hashes = np.zeros(size, dtype=np.int64)
        self._ranks = np.full(size, _EMPTY, dtype=np.int32 if n < 2**31 else np.int64)
        hashes = np.fromiter(map(hash, merges), dtype=np.int64, count=n)
        rank = np.arange(n, dtype=np.int64)  # unplaced merges, by rank
        slot = hashes & self._mask
        table = self._ranks
        claim = np.full(size, n, dtype=np.int64)  # lowest rank bidding for a slot (n: none yet)
        while len(rank):
            free = np.flatnonzero(table[slot] == _EMPTY)
            bids = slot[free]
            np.minimum.at(claim, bids, rank[free])  # a won slot is never free again: no reset
            table[bids] = claim[bids]
            won = table[slot] == rank
            self._hashes[slot[won]] = hashes[rank[won]]
            rank, slot = rank[~won], (slot[~won] + 1) & self._mask

    def get_many(self, keys: list[str]) -> list[int | None]:
        """The rank of each key, or None when it is no merge."""
        out: list[int | None] = [None] * len(keys)
        if not keys or not self._merges:
            return out
        merges = self._merges
        h = np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys))
        todo = np.arange(len(keys))
        slot = h & self._mask
        while len(todo):
            ranks = self._ranks[slot]
            live = ranks != _EMPTY  # an empty slot ends the probe: no such merge
            same = live & (self._hashes[slot] == h[todo])
            if same.any():
                at = np.flatnonzero(same)
                cand = ranks[at].tolist()
                idx = todo[at].tolist()
                matched = list(map(eq, map(keys.__getitem__, idx), map(merges.__getitem__, cand)))
                for i, r, ok in zip(idx, cand, matched):
                    if ok:
                        out[i] = r
                live[at[np.array(matched, dtype=bool)]] = False  # found: stop probing
            todo, slot = todo[live], (slot[live] + 1) & self._mask
        return out
