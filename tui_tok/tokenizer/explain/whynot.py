""""Why not?": what decided against a split the user proposes, or a token they expected.

The proposal is in the model's spelling of the chunk (``Chunk.text``: byte-mapped for byte-level
BPE, ``▁`` for spaces where the model uses it); ``spell`` turns plain input text into it. A
split is pieces joined by ``|`` that occur contiguously in the chunk; an expected token is a
token text or id. The answer names, per family:

- BPE / SPM: each proposed cut the merges erased, with the merge that crossed it and its rank
  (score), and for a proposed piece that is a token the merges that would build it and why
  they came too late (or that none exists);
- UGM: the total score of the best path through the proposal against the best path's: the
  difference (Viterbi keeps the highest total);
- WPM / RWKV: at the first proposed piece that differs, the longer match the greedy took;
- any family: a proposed piece that is no token, or a token whose text does not occur.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui_tok.tokenizer.core.byte_level import ENCODE_TABLE
from tui_tok.tokenizer.explain.result import Chunk, Explanation
from tui_tok.tokenizer.explain.ugm import UgmDetail
from tui_tok.tokenizer.ugm.viterbi import DBL_MAX


@dataclass(frozen=True, slots=True)
class WhyNot:
    """The verdict (one line) and the reasons behind it."""

    verdict: str
    reasons: tuple[str, ...] = ()


def spell(tok, text: str) -> str:  # noqa: ANN001
    """Plain text in the model's spelling of chunks (what ``Chunk.text`` holds)."""
    v = tok.vocab
    if v.type.value == "bpe":
        if tok.encoder.spec.byte_encode:
            return text.encode("utf-8", "surrogateescape").decode("latin-1").translate(ENCODE_TABLE)
        return text.replace(" ", "\u2581") if v.escape_whitespaces else text
    if v.type.value in ("spm", "ugm", "wpm"):
        return text.replace(" ", "\u2581")
    return text


def why_not(tok, expl: Explanation, chunk: Chunk, *, split: str | None = None, token: str | int | None = None) -> WhyNot:  # noqa: ANN001
    """Why the engine did not cut ``chunk`` as ``split`` ("Hel|lo") or emit ``token``."""
    v = tok.vocab
    if token is not None:
        if isinstance(token, int) or (isinstance(token, str) and token.isdigit() and token not in v.token_to_id):
            tid = int(token)
            if not 0 <= tid < v.n_tokens:
                return WhyNot(f"there is no token {tid} (the vocab has {v.n_tokens})")
            text = v.tokens[tid]
        else:
            text = token
            if text not in v.token_to_id:
                return WhyNot(f"{text!r} is not a token of this vocab")
        if v.token_to_id[text] in chunk.ids:
            return WhyNot(f"{text!r} is in this chunk's tokens already")
        if text not in chunk.text:
            where = "this text" if text not in "".join(c.text for f in expl.fragments for c in f.chunks) else "this chunk"
            return WhyNot(f"{text!r} cannot come from {where}: its text does not occur in it", (f"the chunk reads {chunk.text!r}",))
        split = text
    if not split:
        return WhyNot("nothing proposed")
    pieces = [p for p in split.split("|")]
    joined = "".join(pieces)
    at = chunk.text.find(joined)
    if at < 0 and chunk.text.find(spell(tok, joined)) >= 0:
        pieces = [spell(tok, p) for p in pieces]
        joined = "".join(pieces)
        at = chunk.text.find(joined)
    if at < 0:
        return WhyNot(f"{joined!r} does not occur in this chunk", (f"the chunk reads {chunk.text!r}",))
    cuts = []
    pos = at
    for p in pieces:
        cuts.append((pos, pos + len(p), p))
        pos += len(p)
    fam = expl.family
    reasons = [f"{p!r} is not a token" for _, _, p in cuts if p not in v.token_to_id and fam != "ugm"]
    if fam in ("bpe", "spm"):
        return _merges(tok, chunk, cuts, reasons, fam)
    if fam == "ugm" and isinstance(chunk.detail, UgmDetail):
        return _ugm(tok, chunk.detail, cuts, reasons)
    if fam in ("wpm", "rwkv"):
        return _greedy(chunk, cuts, reasons)
    return WhyNot("the engine's path differs" if reasons else "no explanation for this family", tuple(reasons))


def _final_cuts(chunk: Chunk) -> set[int]:
    out, pos = set(), 0
    for s in chunk.final:
        out.add(pos)
        pos += len(s)
    out.add(pos)
    return out


def _merges(tok, chunk: Chunk, cuts, reasons: list[str], fam: str) -> WhyNot:  # noqa: ANN001
    """Which merge erased each proposed cut, and when the proposed tokens could have formed."""
    key = "rank" if fam == "bpe" else "score"
    erased: dict[int, tuple[int, str, str, float]] = {}  # char offset -> (step no, left, right, rank/score)
    row = list(chunk.symbols)
    starts = [0]
    for s in row:
        starts.append(starts[-1] + len(s))
    for n, step in enumerate(chunk.steps):
        if step.kind != "merge":
            continue
        cut = starts[step.at + 1]
        erased.setdefault(cut, (n + 1, step.left, step.right, step.rank if fam == "bpe" else step.score))
        del starts[step.at + 1]
    inner = {a for a, _, _ in cuts[1:]}
    edges = {cuts[0][0], cuts[-1][1]}
    finals = _final_cuts(chunk)
    for c in sorted(inner | edges):
        if c in erased and c not in finals:
            n, left, right, r = erased[c]
            reasons.append(f"your cut at {c} was erased by step {n}: {left!r} + {right!r} ({key} {r:g})")
    spans = set()
    pos = 0
    for sym in chunk.final:
        spans.add((pos, pos + len(sym)))
        pos += len(sym)
    for a, b, p in cuts:
        if p in tok.vocab.token_to_id and (a, b) not in spans:
            reasons.append(_build_reason(tok, chunk, p, fam))
    wrong = [c for c in sorted(inner | edges) if c not in finals]
    verdict = "the engine made this split" if not wrong and not any(a < c < b for a, b, _ in cuts for c in finals) else (
        "the merges went another way: " + (f"{key} order decided" if fam == "bpe" else "higher scores merged first"))
    return WhyNot(verdict, tuple(reasons))


def _build_reason(tok, chunk: Chunk, piece: str, fam: str) -> str:  # noqa: ANN001
    if fam == "bpe":
        ranks = tok.encoder.merge_ranks()
        ways = sorted((ranks[k], k) for k in (piece[:i] + " " + piece[i:] for i in range(1, len(piece))) if k in ranks)
        if not ways:
            return f"{piece!r} is a token but no merge builds it: BPE can only reach it as a whole-word token"
        r, k = ways[0]
        return f"{piece!r} would need merge {k!r} (rank {r}); lower ranks merged its parts elsewhere first"
    score = float(tok.vocab.scores[tok.vocab.token_to_id[piece]])
    return f"{piece!r} is a token (score {score:g}); pairs with higher scores merged its parts elsewhere first"


def _ugm(tok, d: UgmDetail, cuts, reasons: list[str]) -> WhyNot:  # noqa: ANN001
    """Total of the best path through the proposed pieces vs the best total."""
    n = len(d.normalized)
    back = [-DBL_MAX] * (n + 1)  # best total from each position to the end
    back[n] = 0.0
    for a, b, _, w in reversed(d.edges):
        if back[b] > -DBL_MAX and back[b] + w > back[a]:
            back[a] = back[b] + w
    tables = tok.encoder.tables
    total = d.best[cuts[0][0]]
    for a, b, p in cuts:
        tid = tables.ids.get(p)
        if tid is None or not tables.in_trie[tid]:
            if len(p) == 1 and not any(e[0] == a and e[1] == b and e[2] != d.unk_id for e in d.edges):
                total += tables.unk_score
                continue
            reasons.append(f"{p!r} is not a token the search can use")
            return WhyNot("the proposal cannot be a path of the lattice", tuple(reasons))
        reasons.append(f"{p!r}: score {tables.scores[tid]:.4f}")
        total += tables.scores[tid]
    total += back[cuts[-1][1]]
    best = d.best[n]
    if total >= best:
        return WhyNot(f"this split is on a best path (total {total:.4f})", tuple(reasons))
    reasons.append(f"best path through your split totals {total:.4f}; the chosen path totals {best:.4f}")
    return WhyNot(f"Viterbi keeps the higher total: yours is {best - total:.4f} lower", tuple(reasons))


def _greedy(chunk: Chunk, cuts, reasons: list[str]) -> WhyNot:  # noqa: ANN001
    """The first proposed piece the greedy longest match did not take, and what it took."""
    matches = [s for s in chunk.steps if s.kind == "match"]
    pos = 0
    spans = []
    for s in matches:
        spans.append((pos, pos + len(s.token), s.token))
        pos += len(s.token)
    if chunk.steps and chunk.steps[0].kind == "word":  # WPM: offsets in the ▁-word, which is chunk.text
        pass
    taken = {a: (b, t) for a, b, t in spans}
    for a, b, p in cuts:
        if a in taken and taken[a][0] != b:
            got = taken[a][1]
            longer = "a longer" if taken[a][0] > b else "the longest"
            return WhyNot(f"at {a} the greedy match takes {longer} token {got!r}, not {p!r}", tuple(reasons))
        if a not in taken:
            cover = next((t for x, y, t in spans if x < a < y), "")
            return WhyNot(f"no match starts at {a}: {cover!r} already covers it (longest match first)", tuple(reasons))
    return WhyNot("the greedy matches agree with this split", tuple(reasons))
