"""The UGM Viterbi search (``ugm/reference.py``'s ``search``) for many texts at once, in numpy.

A per-text search in Python spends its time in Python: a dict lookup per candidate substring
and a comparison per lattice edge. Here the texts (the distinct pieces of ``ugm/pieces.py``)
are joined and every step runs over all of them together:

1. **lattice edges** (``_edges``): every (position, length) pair that may be a token (lengths
   up to the longest token starting with the position's two characters, clipped at its text's
   end) is looked up at once in the exact hash table of ``ugm/hash.py``; a position with no
   single-character trie token gets the unknown edge instead, as in llama.cpp;
2. **forward pass** (``_search``): position ``t`` of every text advances together. The edges
   leaving position ``t`` all end at different places (one per length, texts apart), so one
   fancy update per ``t`` applies llama.cpp's rule: a candidate ``best[start] + score`` (the
   same double sum of float32 scores) replaces ``best[end]`` only if strictly greater. Starts
   are visited in increasing order, so ties keep the earliest start as in llama.cpp;
3. **backtracking**: every text follows its best-start links together; the token ends are
   marked in one array, and consecutive unknown tokens of a text collapse into one.

Exactly the additions and comparisons of the reference's search, per text, when the texts are
valid UTF-8 (a token can only match between character boundaries: a token ending inside a
character lands on a position no search starts from in llama.cpp either). Does not normalise.

A fast path: what it computes equals ``ugm/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).
"""

from __future__ import annotations

import sys

import numpy as np

from tui_tok.tokenizer.ugm.hash import TokenHash
from tui_tok.tokenizer.ugm.tables import UgmTables

DBL_MAX = sys.float_info.max


def keep_one_unknown(ids: np.ndarray, unk: int) -> np.ndarray:
    """Mask dropping every unknown token followed by another: consecutive unknown tokens
    collapse into one, as in llama.cpp (the last keeps its end; the merged span starts where
    the first did)."""
    keep = np.ones(ids.size, dtype=bool)
    keep[:-1] = ~((ids[:-1] == unk) & (ids[1:] == unk))
    return keep


def _edges(
    cps: np.ndarray,
    rem: np.ndarray,
    tables: UgmTables,
    token_hash: TokenHash,
    unk_id: int,
    single: np.ndarray,
    reach: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every lattice edge of the joined text (code points ``cps``): (start position, length,
    token id, score). ``rem`` is the number of characters from each position to its text's end;
    ``single`` the single-character trie token at each position (-1: none) and ``reach``
    ``token_hash.reach(cps)``, when the caller has them by table (``ugm/alphabet.py``).
    """
    n = cps.size
    bound = token_hash.reach(cps) if reach is None else reach  # longest token worth trying at each position
    np.minimum(bound, rem, out=bound)
    groups = [(1, np.arange(n, dtype=np.int64))]
    sel = np.flatnonzero(bound >= 2)
    length = 2
    while sel.size:
        groups.append((length, sel))
        length += 1
        sel = sel[bound[sel] >= length]
    found = [single, *token_hash.find(cps, groups[1:])]
    one = found[0]
    ok = one >= 0
    starts = [groups[0][1]]
    lengths = [np.ones(n, dtype=np.int64)]
    tids = [np.where(ok, one, unk_id)]  # the unknown edge where no single character matches
    scores = [np.where(ok, tables.score_array[np.where(ok, one, 0)], tables.unk_score)]
    for (size, pos), got in zip(groups[1:], found[1:]):
        hit = np.flatnonzero(got >= 0)
        starts.append(pos[hit])
        lengths.append(np.full(hit.size, size, dtype=np.int64))
        tids.append(got[hit])
        scores.append(tables.score_array[got[hit]])
    return np.concatenate(starts), np.concatenate(lengths), np.concatenate(tids), np.concatenate(scores)


def _search(
    first: np.ndarray,
    lens: np.ndarray,
    start: np.ndarray,
    length: np.ndarray,
    tid: np.ndarray,
    score: np.ndarray,
    unk_id: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Forward pass and backtracking over texts at ``first`` of ``lens`` characters in the
    joined text (every edge inside one): token ids, ends from the text's start, text index;
    consecutive unknown tokens of a text collapsed."""
    count = lens.size
    n = int(first[-1] + lens[-1])
    size = n + count
    index = np.int32 if size < 1 << 31 else np.int64  # fresh memory costs a page fault per 4 KB
    unit = np.repeat(np.arange(count, dtype=index), lens)

    # boundaries: text u has lens[u] + 1 of them, from first[u] + u on
    base = first + np.arange(count, dtype=np.int64)
    begin: np.ndarray = start.astype(index)
    begin += unit[start]
    step = start - first[unit[start]]
    longest = int(lens.max())
    # a stable sort of small integers is a radix sort in numpy (texts shorter than 32k here);
    # the edges are visited in that order, known by their index in the arguments (no copy of
    # the ids and lengths)
    order = np.argsort(step.astype(np.int16) if longest < 1 << 15 else step, kind="stable")
    cuts = np.zeros(longest + 1, dtype=np.int64)
    np.cumsum(np.bincount(step, minlength=longest)[:longest], out=cuts[1:])
    del step
    finish = begin + length.astype(index)
    s_begin, s_finish, s_score = begin[order], finish[order], score[order]
    del finish

    best = np.full(size, -DBL_MAX)
    best[base] = 0.0
    best_edge = np.full(size, -1, dtype=np.int64)  # the edge that won each boundary
    for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        dst = s_finish[a:b]
        cand = best[s_begin[a:b]] + s_score[a:b]
        old = best[dst]
        better = cand > old  # strictly: a tie keeps the earlier start
        best[dst] = np.where(better, cand, old)
        best_edge[dst] = np.where(better, order[a:b], best_edge[dst])
    del s_begin, s_finish, s_score, order
    best_start = begin[best_edge]

    is_end = np.zeros(size, dtype=bool)
    nonempty = lens > 0
    cur = (base + lens)[nonempty]
    stop = base[nonempty]
    while cur.size:
        is_end[cur] = True
        cur = best_start[cur]
        going = cur != stop
        cur = cur[going]
        stop = stop[going]
    ends = np.flatnonzero(is_end)
    won = best_edge[ends]  # the winning edges' ids at the token ends only
    ids = np.where(won >= 0, tid[won], unk_id)
    owner = np.searchsorted(base, ends, side="right") - 1
    ends = ends - base[owner]
    # consecutive unknown tokens of one text collapse (the merged token ends at the last one)
    drop = np.zeros(ids.size, dtype=bool)
    drop[:-1] = (ids[:-1] == unk_id) & (ids[1:] == unk_id) & (owner[:-1] == owner[1:])
    if drop.any():
        keep = ~drop
        ids, ends, owner = ids[keep], ends[keep], owner[keep]
    return ids, ends, owner
