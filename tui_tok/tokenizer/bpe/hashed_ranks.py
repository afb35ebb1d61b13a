"""Merge ranks for many lookups at once, from sorted hashes instead of a dict.

A ``"left right" -> rank`` dict of gemma-4's 515k merges is slow to build, most of it
inserting; the batch merge (``bpe/batch.py``) then asks it for a few tens of thousands of pairs.
This index hashes every merge string once (Python's own ``hash``, cached in the string), keeps
the top 32 bits of each and orders them with two stable 16-bit radix passes
(``sorted_unique.radix_order``: faster than a ``sort`` of the 64-bit hashes, which this
machine's numpy does not vectorise). A lookup finds each key's
(equally truncated) hash with one ``searchsorted`` for all keys, then checks the merge string
itself, so the answer is exact whatever collides: equal truncated hashes form a run of the sorted
array, in rank order (the passes are stable), and the first string of the run that equals the key
has the lowest rank, the one llama.cpp's ``emplace`` keeps.
"""

from __future__ import annotations

from operator import eq

import numpy as np

from tui_tok.tokenizer.arrays.sorted_unique import radix_order


class HashedRanks:
    """Exact lowest index of a key in ``merges``, for batches of keys."""

    def __init__(self, merges: list[str]) -> None:
        self._merges = merges
        n = len(merges)
        top = (np.fromiter(map(hash, merges), dtype=np.int64, count=n).view(np.uint64) >> np.uint64(32)).astype(
            np.uint32
        )
        order = radix_order(top)  # stable: equal truncated hashes stay in rank order
        self._sorted = top[order]
        self._order = order

    def ranks(self, keys: list[str]) -> np.ndarray:
        """The rank of each key as an int64 array, -1 when it is no merge."""
        out = np.full(len(keys), -1, dtype=np.int64)
        n = len(self._merges)
        if not keys or not n:
            return out
        merges = self._merges
        h = (np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys)).view(np.uint64) >> np.uint64(32)).astype(
            np.uint32
        )
        pos = np.searchsorted(self._sorted, h)
        todo = np.arange(len(keys))
        while True:
            live = pos < n
            todo, pos = todo[live], pos[live]
            same = self._sorted[pos] == h[todo]  # a different hash ends the run: no such merge
            todo, pos = todo[same], pos[same]
            if not len(todo):
                return out
            cand = self._order[pos]
            matched = np.fromiter(
                map(eq, map(keys.__getitem__, todo.tolist()), map(merges.__getitem__, cand.tolist())),
                dtype=bool, count=len(todo),
            )  # fmt: skip
            out[todo[matched]] = cand[matched]
            miss = ~matched  # same hash, other string: try the next one
            todo, pos = todo[miss], pos[miss] + 1
