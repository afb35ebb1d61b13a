"""UGM explained: what the normaliser changed, the Viterbi lattice, the best path and its rivals.

Uses the encoder's own normaliser (``ugm/normalize.py``: ``chunk`` per input position gives
each charsmap / user-defined replacement with its offsets; ``normalize`` gives the text the
search runs on) and its search tables (``ugm/tables.py``). The lattice lists, at each code point,
the trie tokens the search offers there (in ``viterbi_str``'s order) and the unknown piece when
no token is that one code point. A k-best search over the same edges and the same double
additions gives the best whole segmentations (the first is llama.cpp's, checked against
``viterbi_str``); for each piece of the best path, the best rival is the other edge ending at
the same place with the highest total (Viterbi compares there, and keeps the earliest on ties).

UGM has no pre-tokenizer: a raw fragment is one chunk.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui_tok.tokenizer.explain.result import Chunk, ExplainMismatchError, Step
from tui_tok.tokenizer.ugm.encoder import UgmEncoder
from tui_tok.tokenizer.ugm.viterbi import DBL_MAX, viterbi_str

K_BEST = 3

Edge = tuple[int, int, int, float]
"""(start char, end char, token id or the unk id, score) of the normalised text."""


@dataclass(frozen=True, slots=True)
class UgmDetail:
    """The search of one fragment, in characters of the normalised text."""

    normalized: str
    offsets: tuple[int, ...]
    """Input byte offset of each character boundary of ``normalized``."""
    edges: tuple[Edge, ...]
    best: tuple[float, ...]
    """Best total at each character boundary (``-DBL_MAX`` where nothing ends)."""
    paths: tuple[tuple[float, tuple[tuple[int, int, int], ...]], ...]
    """Up to ``K_BEST`` best segmentations: (total, ((id, start char, end char), ...))."""
    unk_id: int


def explain_fragment(enc: UgmEncoder, data: bytes, *, k_best: int = K_BEST) -> list[Chunk]:
    if not data:
        return []
    tables = enc.tables
    norm = enc.normalizer.normalize(data)
    tokens = enc.vocab.tokens
    unk_id = enc.vocab.unk_id
    steps = _normalize_steps(enc, data)
    try:
        s = norm.text.decode("utf-8")
    except UnicodeDecodeError:  # the byte search (llama.cpp's lenient decode): pieces only
        pieces = enc.encode_reference(data)
        steps += [Step("piece", token=tokens[t] if 0 <= t < len(tokens) else "", id=t, start=a, end=b) for t, a, b in pieces]
        return [Chunk(0, len(data), tuple(t for t, _, _ in pieces), tuple(steps), text=norm.text.decode("utf-8", "replace"),
                      shortcut="normalised text is not valid UTF-8: the byte search, no lattice")]  # fmt: skip
    if not s:
        return [Chunk(0, len(data), (), tuple(steps), text="", shortcut="the normaliser removed everything")]
    byte_at = [0]
    for ch in s:
        byte_at.append(byte_at[-1] + len(ch.encode("utf-8")))
    offsets = tuple(norm.offsets[b] for b in byte_at)
    edges = _lattice(s, enc, unk_id)
    best, back = _forward(len(s), edges)
    real = viterbi_str(s, tables.ids, tables.in_trie, tables.scores, tables.pair_max_len,
                       unk_id=unk_id, unk_score=tables.unk_score)  # fmt: skip
    paths = _k_best(len(s), edges, max(k_best, 1), unk_id)
    if not paths or [p for p in paths[0][1]] != [tuple(r) for r in real]:
        raise ExplainMismatchError(f"UGM: the k-best search's first path differs from viterbi_str on {s!r}")
    ids = tuple(t for t, _, _ in real)
    into: dict[int, list[int]] = {}
    for k, e in enumerate(edges):
        into.setdefault(e[1], []).append(k)
    prev = 0
    for tid, a, b in real:
        end = offsets[b] if b < len(s) else len(data)
        rival, rival_total = _rival(edges, into.get(b, []), back[b], best, tokens, unk_id)
        score = best[b] - best[a]
        steps.append(Step("piece", token=_text(tokens, tid, unk_id, s[a:b]), id=tid, start=prev, end=end, score=score,
                          total=best[b], rival=rival, rival_total=rival_total))  # fmt: skip
        prev = end
    for rank, (total, path) in enumerate(paths, 1):
        steps.append(Step("path", rank=rank, total=total, tokens=tuple(_text(tokens, t, unk_id, s[a:b]) for t, a, b in path)))
    detail = UgmDetail(s, offsets, tuple(edges), tuple(best), tuple(paths), unk_id)
    return [Chunk(0, len(data), ids, tuple(steps), text=s, detail=detail)]


def _text(tokens: list[str], tid: int, unk_id: int, covered: str) -> str:
    return f"<unk:{covered}>" if tid == unk_id else tokens[tid]


def _normalize_steps(enc: UgmEncoder, data: bytes) -> list[Step]:
    """Each input chunk the normaliser replaced (charsmap match, bad byte -> U+FFFD)."""
    out: list[Step] = []
    pos = 0
    chunk = enc.normalizer.chunk
    while pos < len(data):
        rep, used = chunk(data, pos)
        src = data[pos : pos + used]
        if rep != src:
            out.append(Step("normalize", start=pos, end=pos + used, text_from=src.decode("utf-8", "replace"),
                            text_to=rep.decode("utf-8", "replace")))  # fmt: skip
        pos += max(used, 1)
    return out


def _lattice(s: str, enc: UgmEncoder, unk_id: int) -> list[Edge]:
    """Every edge the search offers, in ``viterbi_str``'s order (per start: the one-character
    token, longer tokens by length, then the unknown piece when no token is that character)."""
    tables = enc.tables
    get = tables.ids.get
    in_trie = tables.in_trie
    scores = tables.scores
    longest = tables.pair_max_len.get
    n = len(s)
    edges: list[Edge] = []
    for i in range(n):
        tid = get(s[i])
        single = tid is not None and in_trie[tid] != 0
        if single:
            edges.append((i, i + 1, tid, scores[tid]))  # type: ignore[arg-type, index]
        for end in range(i + 2, min(i + longest(s[i : i + 2], 0), n) + 1):
            t = get(s[i:end])
            if t is not None and in_trie[t]:
                edges.append((i, end, t, scores[t]))
        if not single:
            edges.append((i, i + 1, unk_id, tables.unk_score))
    return edges


def _forward(n: int, edges: list[Edge]) -> tuple[list[float], list[int]]:
    """Viterbi's best totals and, per end, the index of the winning edge (strictly greater wins)."""
    best = [-DBL_MAX] * (n + 1)
    best[0] = 0.0
    back = [-1] * (n + 1)
    for k, (a, b, _, w) in enumerate(edges):
        cand = best[a] + w
        if cand > best[b]:
            best[b] = cand
            back[b] = k
    return best, back


def _rival(edges: list[Edge], into: list[int], chosen: int, best: list[float], tokens: list[str], unk_id: int) -> tuple[str, float | None]:
    """The best other edge (of ``into``, the edges ending here) than ``chosen``: its token and
    the total it offered."""
    top: tuple[float, int] | None = None
    for k in into:
        a, _, _, w = edges[k]
        if k != chosen and best[a] > -DBL_MAX:
            cand = best[a] + w
            if top is None or cand > top[0]:
                top = (cand, k)
    if top is None:
        return "", None
    a, b, tid, _ = edges[top[1]]
    return ("<unk>" if tid == unk_id else tokens[tid]), top[0]


def _k_best(n: int, edges: list[Edge], k: int, unk_id: int) -> list[tuple[float, tuple[tuple[int, int, int], ...]]]:
    """The k best segmentations (ties: first offered, as Viterbi), unknown runs collapsed."""
    offers: list[list[tuple[float, int, int, int, int]]] = [[] for _ in range(n + 1)]
    top: list[list[tuple[float, int, int, int, int]]] = [[] for _ in range(n + 1)]
    top[0] = [(0.0, 0, -1, -1, -1)]
    order = 0
    by_start: list[list[Edge]] = [[] for _ in range(n + 1)]
    for e in edges:
        by_start[e[0]].append(e)
    for i in range(n):
        if i:
            top[i] = sorted(offers[i], key=lambda o: (-o[0], o[1]))[:k]
        for a, b, tid, w in by_start[i]:
            for j, entry in enumerate(top[i]):
                offers[b].append((entry[0] + w, order, a, tid, j))
                order += 1
    top[n] = sorted(offers[n], key=lambda o: (-o[0], o[1]))[:k]
    out = []
    for entry in top[n]:
        pieces: list[tuple[int, int, int]] = []
        end, cur = n, entry
        while end > 0:
            _, _, start, tid, j = cur
            if pieces and tid == unk_id and pieces[-1][0] == unk_id:
                pieces[-1] = (tid, start, pieces[-1][2])
            else:
                pieces.append((tid, start, end))
            end, cur = start, top[start][j]
        out.append((entry[0], tuple(reversed(pieces))))
    return out
