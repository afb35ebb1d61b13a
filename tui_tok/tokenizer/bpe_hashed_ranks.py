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
        lo = np.searchsorted(self._hashes, h, side="left")
        hi = np.searchsorted(self._hashes, h, side="right")
        first = np.minimum(lo, len(self._ranks) - 1)
        ranks = self._ranks[first].tolist()
        merges = self._merges
        found = list(map(eq, keys, map(merges.__getitem__, ranks)))
        out: list[int | None] = [r if f and n else None for r, f, n in zip(ranks, found, (hi - lo).tolist())]
        for i in np.flatnonzero(hi - lo > 1).tolist():  # a shared hash: try the run in rank order
            out[i] = next((r for r in self._ranks[lo[i] : hi[i]].tolist() if merges[r] == keys[i]), None)
        return out
