"""The UGM Viterbi search of ``ugm_viterbi.viterbi_str`` for many texts at once, in numpy.

The per-text search spends its time in Python: a dict lookup per candidate substring and a
comparison per lattice edge (a bulk ``map(dict.get, substrings)`` is no better: building and
hashing the substrings dominates). Here the texts (normalised units, see ``ugm/encoder.py``) are
joined and every step runs over all of them together:

1. **lattice edges**: every (position, length) pair that may be a token (lengths up to the
   longest token starting with the position's two characters, clipped at its text's end) is
   looked up at once in the exact hash table of ``ugm/hash.py``; a position with no
   single-character trie token gets the unknown edge instead, as in llama.cpp;
2. **forward pass**: position ``t`` of every text advances together. The edges leaving
   position ``t`` all end at different places (one per length, texts apart), so one fancy
   update per ``t`` applies llama.cpp's rule: a candidate ``best[start] + score`` (the same
   double sum of float32 scores) replaces ``best[end]`` only if strictly greater (the
   winning edge is kept per boundary). Starts are visited in increasing order, so ties keep
   the earliest start as in llama.cpp;
3. **backtracking**: every text follows its best-start links together; the token ends are
   marked in one array, and consecutive unknown tokens of a text collapse into one.

Exactly the additions and comparisons of ``viterbi_str`` (and so of llama.cpp), per text.
Does not normalise or map offsets (``ugm/units.py``) and does not merge unknown tokens across
texts (``ugm/encoder.py`` does, when it joins units).

A fast path: what it computes equals ``ugm/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).

>>> from tui_tok.tokenizer.ugm.tables import build_tables, trie_hash
>>> from tui_tok.tokenizer.ugm.normalize import UgmNormalizer
>>> from tui_tok.tokenizer.core.vocab import vocab_from_metadata
>>> v = vocab_from_metadata({"tokenizer.ggml.model": "t5",
...     "tokenizer.ggml.tokens": ["<unk>", "▁a", "▁", "a", "b"],
...     "tokenizer.ggml.scores": [0.0, -1.0, -2.0, -2.0, -3.0],
...     "tokenizer.ggml.token_type": [2, 1, 1, 1, 1]})
>>> t = build_tables(v, UgmNormalizer(charsmap=None, user_defined=(), prepend=True, merge=True))
>>> r = viterbi_batch(["▁ab", "xy", ""], t, trie_hash(t), unk_id=0)
>>> r.ids.tolist(), r.ends.tolist(), r.counts.tolist()
([1, 4, 0], [2, 3, 2], [2, 1, 0])
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tui_tok.tokenizer.ugm.hash import TokenHash, text_code_points
from tui_tok.tokenizer.ugm.tables import UgmTables

DBL_MAX = sys.float_info.max


@dataclass(frozen=True, slots=True)
class BatchResult:
    """Tokens of every text, text after text."""

    ids: np.ndarray
    """Token ids (int64)."""
    ends: np.ndarray
    """Each token's end, in characters (or UTF-8 bytes) from its text's start (int64); a
    token starts where the previous token of its text ended (or at 0)."""
    counts: np.ndarray
    """Number of tokens per text (int64), in input order."""


def keep_one_unknown(ids: np.ndarray, unk: int) -> np.ndarray:
    """Mask dropping every unknown token followed by another: consecutive unknown tokens
    collapse into one, as in llama.cpp (the last keeps its end; the merged span starts where
    the first did)."""
    keep = np.ones(ids.size, dtype=bool)
    keep[:-1] = ~((ids[:-1] == unk) & (ids[1:] == unk))
    return keep


def keep_one_unknown_per_text(ids: np.ndarray, owner: np.ndarray, unk: int) -> np.ndarray | None:
    """``keep_one_unknown`` for the tokens of many texts in a row (``owner``: each token's text):
    runs collapse within a text only; None when no two unknown tokens of a text touch."""
    drop = np.zeros(ids.size, dtype=bool)
    drop[:-1] = (ids[:-1] == unk) & (ids[1:] == unk) & (owner[:-1] == owner[1:])
    return ~drop if drop.any() else None


def utf8_ends(cps: np.ndarray, first: np.ndarray, owner: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Token ends in code points from their text's start (texts joined in ``cps``, text k from
    ``first[k]``) as UTF-8 byte offsets from that start."""
    widths = 1 + (cps >= 0x80).astype(np.int64) + (cps >= 0x800) + (cps >= 0x10000)
    at = np.zeros(cps.size + 1, dtype=np.int64)
    np.cumsum(widths, out=at[1:])
    return at[first[owner] + ends] - at[first[owner]]  # type: ignore[no-any-return]


def collapse_unknown(ids: np.ndarray, unk: int) -> np.ndarray:
    """``ids`` with consecutive unknown tokens collapsed into one (``ids`` itself when no two
    unknown tokens touch)."""
    unknown = ids == unk
    if not (unknown[:-1] & unknown[1:]).any():
        return ids
    return ids[keep_one_unknown(ids, unk)]


def _edges(
    cps: np.ndarray,
    rem: np.ndarray,
    tables: UgmTables,
    token_hash: TokenHash,
    unk_id: int,
    known: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every lattice edge of the joined text (code points ``cps``): (start position, length,
    token id, score). ``rem`` is the number of characters from each position to its text's end.
    ``known``: ``token_hash.reach(cps)`` and the single-character tokens (-1: none), when the
    caller has them by table (``ugm/alphabet.py``).
    """
    n = cps.size
    bound = token_hash.reach(cps) if known is None else known[0]  # longest token worth trying at each position
    np.minimum(bound, rem, out=bound)
    groups = [(1, np.arange(n, dtype=np.int64))]
    sel = np.flatnonzero(bound >= 2)
    length = 2
    while sel.size:
        groups.append((length, sel))
        length += 1
        sel = sel[bound[sel] >= length]
    if known is None:
        found = token_hash.find(cps, groups)
    else:
        found = [known[1], *token_hash.find(cps, groups[1:])]
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


def _pieces(n: int, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """First position of every piece of the joined text between boundaries that no edge
    crosses (every text start is one: edges stop at their text's end)."""
    crossing = np.bincount(start + 1, minlength=n + 1) - np.bincount(start + length, minlength=n + 1)
    return np.flatnonzero(np.cumsum(crossing[:n]) == 0)


def viterbi_batch(
    texts: Sequence[str],
    tables: UgmTables,
    token_hash: TokenHash,
    *,
    unk_id: int,
    byte_ends: bool = False,
    restart: bool = False,
) -> BatchResult:
    """Best tokenization of every text (each searched on its own), as llama.cpp's search.

    With ``byte_ends``, token ends are counted in UTF-8 bytes instead of characters.

    With ``restart``, each text is also cut at every boundary that no lattice edge crosses and
    the pieces are searched apart: every path passes there, so when no addition rounds (the
    caller's condition 3 of ``ugm/encoder.py``) the best values after it are the ones searched
    from it shifted by a constant, and the winner is the same. The forward pass then takes as
    many steps as the longest piece, not the longest text (a 1 KB line of CJK characters the
    vocab does not hold: 1 step instead of 1000).
    """
    count = len(texts)
    lens = np.fromiter(map(len, texts), dtype=np.int64, count=count)
    s = "".join(texts)
    n = len(s)
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return BatchResult(ids=empty, ends=empty, counts=np.zeros(count, dtype=np.int64))
    first = np.cumsum(lens) - lens  # each text's first position in s
    unit = np.repeat(np.arange(count, dtype=np.int64), lens)
    local = np.arange(n, dtype=np.int64) - first[unit]
    rem = lens[unit] - local
    cps = text_code_points(s)
    start, length, tid, score = _edges(cps, rem, tables, token_hash, unk_id)
    if restart:
        piece_first = _pieces(n, start, length)
        piece_lens = np.diff(piece_first, append=n)
        ids, ends, piece = _search(piece_first, piece_lens, start, length, tid, score, unk_id)
        owner = unit[piece_first[piece]]
        ends = ends + (piece_first[piece] - first[owner])  # from the piece's start to the text's
        # consecutive unknown tokens of one text collapse (pieces of a text may both end in one)
        keep = keep_one_unknown_per_text(ids, owner, unk_id)
        if keep is not None:
            ids, ends, owner = ids[keep], ends[keep], owner[keep]
    else:
        ids, ends, owner = _search(first, lens, start, length, tid, score, unk_id)
    if byte_ends:
        ends = utf8_ends(cps, first, owner, ends)
    return BatchResult(ids=ids, ends=ends, counts=np.bincount(owner, minlength=count).astype(np.int64))


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
