"""Final symbols of many merged words -> each word's token ids and byte sizes, in whole arrays.

After a batch merge (``batch/merge.py``) every word is a list of symbol ids. Turning each list
into ids and byte sizes one word at a time (a dict lookup or two per symbol, tuples per word)
cost as much as the merge itself for thousands of words. Every symbol expands to a fixed run of
tokens (a token symbol to itself; a symbol that is no token to its byte tokens), so the caller
describes each distinct symbol once (``parts``, memoised by the caller) and the expansion of all
words is a few numpy gathers; only the final per-word tuples are built in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from operator import itemgetter

import numpy as np

from tui_tok.tokenizer.arrays.sorted_unique import unique_inverse

Parts = tuple[tuple[int, ...], tuple[int, ...]]
"""One symbol's token ids and the input bytes each covers (equal lengths, at least one each)."""


def expand_words(merged: list[list[int]], parts: Callable[[list[int]], list[Parts]], *, ends: bool) -> list[Parts]:
    """Per word: its symbols' token ids concatenated, and their byte sizes (``ends``: the running
    byte ends inside the word instead). ``parts(symbol_ids)`` describes distinct symbols."""
    if not merged:
        return []
    flat = np.array(list(chain.from_iterable(merged)), dtype=np.int64)
    per_word = np.fromiter(map(len, merged), dtype=np.int64, count=len(merged))
    uniq, inv = unique_inverse(flat)
    described = parts(uniq.tolist())
    n_parts = np.fromiter(map(len, map(itemgetter(0), described)), dtype=np.int64, count=len(described))
    part_ids = np.array(list(chain.from_iterable(map(itemgetter(0), described))), dtype=np.int64)
    part_sizes = np.array(list(chain.from_iterable(map(itemgetter(1), described))), dtype=np.int64)
    if len(part_ids) == len(uniq):  # every symbol is one token: no expansion
        ids, sizes = part_ids[inv], part_sizes[inv]
        tokens_per_word = per_word
    else:
        k = n_parts[inv]  # tokens per symbol
        first = (np.cumsum(n_parts) - n_parts)[inv]  # its first part
        run_start = np.cumsum(k) - k
        src = np.repeat(first - run_start, k) + np.arange(int(k.sum()))
        ids, sizes = part_ids[src], part_sizes[src]
        word_of_symbol = np.repeat(np.arange(len(merged)), per_word)
        tokens_per_word = np.bincount(word_of_symbol, weights=k, minlength=len(merged)).astype(np.int64)
    bounds = np.concatenate(([0], np.cumsum(tokens_per_word)))
    if ends:
        total = np.cumsum(sizes)
        before = np.concatenate(([0], total))[bounds[:-1]]  # bytes of the earlier words
        sizes = total - np.repeat(before, tokens_per_word)
    id_list = ids.tolist()
    size_list = sizes.tolist()
    b = bounds.tolist()
    return [(tuple(id_list[s:e]), tuple(size_list[s:e])) for s, e in zip(b, b[1:])]
