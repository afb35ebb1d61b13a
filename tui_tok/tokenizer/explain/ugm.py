"""UGM explained: what the normaliser changed, the Viterbi lattice, the best path and its rivals.

The trace is ``ugm/reference.py``'s own: its ``normalize`` step (and the normaliser's ``chunk``,
one ``normalize_prefix`` per input position, for the replacements), and its ``search`` step with
the ``on_edge`` hook giving every offer in llama.cpp's order with the total it offered and whether
it won. The lattice lists, at each code point, the trie tokens offered there and the unknown piece
when no token is that one code point. A k-best search over the same edges and the same double
additions gives the best whole segmentations (the first must be the reference's path); for each
piece of the best path, the best rival is the other edge ending at the same place with the highest
total (Viterbi compares there, and keeps the earliest on ties).

UGM has no pre-tokenizer: a raw fragment is one chunk.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui_tok.tokenizer.explain.result import Chunk, ExplainMismatchError, Step
from tui_tok.tokenizer.ugm.normalize import UgmNormalizer
from tui_tok.tokenizer.ugm.reference import DBL_MAX, ReferenceEncoder

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


def explain_fragment(ref: ReferenceEncoder, data: bytes, *, k_best: int = K_BEST) -> list[Chunk]:
    if not data:
        return []
    tokens = ref.vocab.tokens
    unk_id = ref.vocab.unk_id
    steps = _normalize_steps(ref.normalizer, data)
    norm = ref.normalize(data)
    offers: list[tuple[int, int, int, float, float, bool]] = []
    found = ref.search(norm.text, on_edge=lambda *e: offers.append(e))
    try:
        s = norm.text.decode("utf-8")
    except UnicodeDecodeError:  # llama.cpp's lenient decode: pieces only
        pieces = [(t, norm.offsets[a], norm.offsets[b]) for t, a, b in found]
        steps += [
            Step("piece", token=tokens[t] if 0 <= t < len(tokens) else "", id=t, start=a, end=b) for t, a, b in pieces
        ]
        return [Chunk(0, len(data), tuple(t for t, _, _ in pieces), tuple(steps), text=norm.text.decode("utf-8", "replace"),
                      shortcut="normalised text is not valid UTF-8: the byte search, no lattice")]  # fmt: skip
    if not s:
        return [Chunk(0, len(data), (), tuple(steps), text="", shortcut="the normaliser removed everything")]
    byte_at = [0]
    for ch in s:
        byte_at.append(byte_at[-1] + len(ch.encode("utf-8")))
    char_at = {b: k for k, b in enumerate(byte_at)}
    offsets = tuple(norm.offsets[b] for b in byte_at)
    # the offers in characters (one ending inside a character is never extended: left out);
    # best total and winning edge at each boundary, as the search recorded them
    edges: list[Edge] = []
    best = [-DBL_MAX] * (len(s) + 1)
    best[0] = 0.0
    back = [-1] * (len(s) + 1)
    for a, b, tid, score, total, taken in offers:
        if b not in char_at:
            continue
        if taken:
            best[char_at[b]] = total
            back[char_at[b]] = len(edges)
        edges.append((char_at[a], char_at[b], tid, score))
    real = [(tid, char_at[a], char_at[b]) for tid, a, b in found]
    paths = _k_best(len(s), edges, max(k_best, 1), unk_id)
    if not paths or list(paths[0][1]) != real:
        raise ExplainMismatchError(f"UGM: the k-best search's first path differs from the reference's on {s!r}")
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
        steps.append(
            Step("path", rank=rank, total=total, tokens=tuple(_text(tokens, t, unk_id, s[a:b]) for t, a, b in path))
        )
    detail = UgmDetail(s, offsets, tuple(edges), tuple(best), tuple(paths), unk_id)
    return [Chunk(0, len(data), ids, tuple(steps), text=s, detail=detail)]


def _text(tokens: list[str], tid: int, unk_id: int, covered: str) -> str:
    return f"<unk:{covered}>" if tid == unk_id else tokens[tid]


def _normalize_steps(normalizer: UgmNormalizer, data: bytes) -> list[Step]:
    """Each input chunk the normaliser replaced (charsmap match, bad byte -> U+FFFD)."""
    out: list[Step] = []
    pos = 0
    chunk = normalizer.chunk
    while pos < len(data):
        rep, used = chunk(data, pos)
        src = data[pos : pos + used]
        if rep != src:
            out.append(Step("normalize", start=pos, end=pos + used, text_from=src.decode("utf-8", "replace"),
                            text_to=rep.decode("utf-8", "replace")))  # fmt: skip
        pos += max(used, 1)
    return out


def _rival(
    edges: list[Edge], into: list[int], chosen: int, best: list[float], tokens: list[str], unk_id: int
) -> tuple[str, float | None]:
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
