"""RWKV's greedy longest match for many short chunks at once, in numpy.

``rwkv/encoder.py`` cuts a text into chunks that no token crosses (137k of them in 0.56 MB of
mixed text) and looks each up whole; the ~4k distinct ones that are not one token come here.
A substring of up to 15 bytes is named exactly by two 64-bit words, so "which token is
``text[o:o+L]``" is a probe in a hash table of the tokens of up to 15 bytes (``rwkv/table.py``),
done for every chunk together:

1. each round takes, at every unfinished chunk's current offset, the longest token: the
   length ``min(rest of the chunk, longest token starting with these two bytes)`` first, then
   every shorter length of 3 bytes or more of the chunks that missed, then two bytes and one
   from direct tables, all chunks advancing together; a byte that starts no token is the unk
   id, a byte that starts one that never matches makes the round give up (``None``: the
   caller's walk raises llama.cpp's error);
2. the ids are written straight to their place in the output: a chunk's tokens follow the
   tokens of the chunks before it.

Tokens longer than 15 bytes are checked where one may start (``rwkv/long.py``); the last few
unfinished chunks are walked in Python. Same ids as ``RwkvEncoder._walk`` on each chunk (tested).

A fast path: what it computes equals ``rwkv/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).

>>> table = TokenTable.build({b"a": 0, b"ab": 1, b"b": 2, b"abc": 3})
>>> text = b"abcab" + b"ba"
>>> ids, counts = greedy_chunks(text, np.array([0, 3, 5]), np.array([3, 2, 2]), table, unk_id=-1)
>>> ids.tolist(), counts.tolist()
([3, 1, 2, 0], [1, 1, 2])
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain

import numpy as np

from tui_tok.tokenizer.arrays.chunks import word_view
from tui_tok.tokenizer.rwkv.table import MAX_LEN, TokenTable, keys


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
    whole_missed: bool = False,
    few: int = 64,
) -> tuple[np.ndarray, np.ndarray] | None:
    """llama.cpp's greedy longest match on each chunk ``text[at[k]:at[k]+length[k]]``: all the
    ids, chunk after chunk, and how many each chunk has; None if some chunk holds a byte that
    starts a token but no token matches there (llama.cpp would hang). ``finish`` (the same
    match on one text, in Python) takes over the last ``few`` chunks (``Paths.rwkv_python_max``: a round
    costs a fixed numpy overhead however few chunks it has, and the last rounds, a few long chunks, have few). ``words``: the
    text's ``word_view``, or a contiguous copy of it (faster gathers). ``whole_missed``: no
    chunk is one token (``rwkv/encoder.py`` looked them up whole), so the first round does not
    look up again the chunks whose longest candidate is the whole chunk (most of them)."""
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
        if finish is not None and active.size <= few:
            ends = (at[active] + length[active]).tolist()
            tail = [finish(text[a:b]) for a, b in zip((at[active] + pos[active]).tolist(), ends)]
            break
        here = at[active] + pos[active]
        rest = length[active] - pos[active]
        pair = (data[here].astype(np.int64) << 8) | data[here + 1]
        size = np.minimum(rest, np.maximum(table.longest[pair], 1))
        if whole_missed:  # the first round's longest candidate is mostly the whole chunk
            whole_missed = False
            found = np.full(size.size, -1, dtype=np.int64)
            probe = np.flatnonzero(size < rest)
            found[probe] = table.find(*keys(words, here[probe], size[probe]))
        else:
            found = table.find(*keys(words, here, size))  # the longest candidate first: mostly a hit
        took = size.copy()
        miss = np.flatnonzero((found < 0) & (size > 1))
        if miss.size:  # every shorter length of 3 bytes or more of every miss at once...
            tries = np.maximum(size[miss] - 3, 0)
            which = np.repeat(miss, tries)
            step = np.arange(which.size, dtype=np.int64) - np.repeat(np.cumsum(tries) - tries, tries)
            shorter = np.repeat(size[miss] - 1, tries) - step
            tid = table.find(*keys(words, here[which], shorter))
            hit = np.flatnonzero(tid >= 0)
            first = np.ones(hit.size, dtype=bool)  # the first hit of each chunk is its longest
            first[1:] = which[hit[1:]] != which[hit[:-1]]
            hit = hit[first]
            found[which[hit]] = tid[hit]
            took[which[hit]] = shorter[hit]
            short = miss[found[miss] < 0]  # ...then two bytes, then one, from direct tables
            two = short[size[short] > 2]
            tid = table.pair_ids[pair[two]]
            found[two], took[two] = tid, 2
            one = short[found[short] < 0]
            found[one], took[one] = table.byte_ids[data[here[one]]], 1
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
