"""Merge ranks for many lookups at once, from a sorted array of hashes instead of a dict.

A ``"left right" -> rank`` dict of gemma-4's 515k merges costs ~0.25 s to build here, most of it
inserting; the batch merge (``bpe_batch.py``) then asks it for a few tens of thousands of pairs.
This index hashes every merge string once (Python's own ``hash``, cached on the strings), packs
each hash's top 44 bits with the merge's rank into one int64 and sorts them (~0.1 s in all). A
lookup hashes the key, finds the run of equal packed hashes with ``searchsorted``, and checks the
merge string itself, so the answer is exact whatever collides: within a run ranks ascend, so the
first string that matches has the lowest rank, which is the one llama.cpp's ``emplace`` keeps.
"""

from __future__ import annotations

from operator import eq

import numpy as np

_RANK_BITS = 20  # the hash's low bits give way to the rank


class HashedRanks:
    """Exact ``merges.index(key)`` (lowest rank) for batches of keys."""

    def __init__(self, merges: list[str]) -> None:
        if len(merges) >= 1 << _RANK_BITS:
            raise ValueError("too many merges for HashedRanks; use the rank dict")
        self._merges = merges
        hashes = np.fromiter(map(hash, merges), dtype=np.int64, count=len(merges))
        packed = ((hashes >> _RANK_BITS) << _RANK_BITS) | np.arange(len(merges), dtype=np.int64)
        packed.sort()
        self._hashes = packed >> _RANK_BITS
        self._ranks = packed & ((1 << _RANK_BITS) - 1)

    @staticmethod
    def fits(merges: list[str]) -> bool:
        return len(merges) < 1 << _RANK_BITS

    def get_many(self, keys: list[str]) -> list[int | None]:
        """The rank of each key, or None when it is no merge."""
        if not keys or not self._merges:
            return [None] * len(keys)
        h = np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys)) >> _RANK_BITS
        hashes = self._hashes
        last = len(hashes) - 1
        lo = np.minimum(np.searchsorted(hashes, h, side="left"), last)
        hit = hashes[lo] == h
        ranks = np.where(hit, self._ranks[lo], 0).tolist()  # rank 0 stands in for a miss below
        merges = self._merges
        found = list(map(eq, keys, map(merges.__getitem__, ranks)))
        out: list[int | None] = [r if f else None for r, f in zip(ranks, found)]
        shared = hit & (hashes[np.minimum(lo + 1, last)] == h) & (lo < last)
        for i in np.flatnonzero(shared).tolist():  # a run of equal hashes: try it in rank order
            j = int(lo[i])
            while j <= last and hashes[j] == h[i]:
                r = int(self._ranks[j])
                if merges[r] == keys[i]:
                    out[i] = r
                    break
                j += 1
        return out
