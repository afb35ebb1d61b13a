""" "Why not?": what decided against a split the user proposes, or a token they expected.

The proposal is in the model's spelling of the chunk (``Chunk.text``: byte-mapped for byte-level
BPE, ``▁`` for spaces where the model uses it); ``spell`` turns plain input text into it. A
split is pieces joined by ``|`` that occur contiguously in the chunk; an expected token is a
token text or id. The answer names, per family:

- BPE / SPM: each proposed cut the merges erased, with the merge that crossed it and its rank
  (score), and for a proposed piece that is a token what the chunk's own merge trace did to it:
  built at step n and then absorbed into a longer symbol at step m, or never built (a merge
  joined across its edge first, or no merge joins its parts);
- UGM: the total score of the best path through the proposal against the best path's: the
  difference (Viterbi keeps the highest total);
- WPM / RWKV: at the first proposed piece that differs, the longer match the greedy took (WPM:
  or the byte no token starts at, which makes the whole word [UNK]);
- any family: a proposed piece that is no token, or a token whose text does not occur; a
  split with an empty piece ("|", "a||b") is one message.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui_tok.tokenizer.core.byte_level import ENCODE_TABLE
from tui_tok.tokenizer.explain.engine import reference
from tui_tok.tokenizer.explain.result import Chunk, Explanation
from tui_tok.tokenizer.explain.ugm import UgmDetail
from tui_tok.tokenizer.ugm.reference import DBL_MAX


@dataclass(frozen=True, slots=True)
class WhyNot:
    """The verdict (one line) and the reasons behind it."""

    verdict: str
    reasons: tuple[str, ...] = ()


def split_pieces(split: str) -> list[str]:
    r"""The pieces of a proposed split: ``Hel|lo`` is ``Hel``, ``lo``; ``\|`` is a bar and ``\\`` a
    backslash inside a piece (any other backslash is itself).

    >>> split_pieces("Hel|lo"), split_pieces("a\\||b"), split_pieces("|"), split_pieces("\\\\|x")
    (['Hel', 'lo'], ['a|', 'b'], ['', ''], ['\\', 'x'])
    """
    pieces, piece, i = [], [], 0
    while i < len(split):
        c = split[i]
        if c == "\\" and i + 1 < len(split) and split[i + 1] in "|\\":
            piece.append(split[i + 1])
            i += 2
            continue
        if c == "|":
            pieces.append("".join(piece))
            piece = []
        else:
            piece.append(c)
        i += 1
    pieces.append("".join(piece))
    return pieces


def spell(tok, text: str) -> str:
    """Plain text in the model's spelling of chunks (what ``Chunk.text`` holds)."""
    v = tok.vocab
    if v.type.value == "bpe":
        if reference(v).spec.byte_encode:
            return text.encode("utf-8", "surrogateescape").decode("latin-1").translate(ENCODE_TABLE)
        return text.replace(" ", "\u2581") if v.escape_whitespaces else text
    if v.type.value in ("spm", "ugm", "wpm"):
        return text.replace(" ", "\u2581")
    return text


def why_not(
    tok, expl: Explanation, chunk: Chunk, *, split: str | None = None, token: str | int | None = None
) -> WhyNot:
    """Why the engine did not cut ``chunk`` as ``split`` ("Hel|lo") or emit ``token``.

    A bar inside a piece is written ``\\|`` (a backslash ``\\\\``); a split that is itself the text of a token in the
    chunk (``<|im_start|>``, ``||``) asks about that token."""
    v = tok.vocab
    if token is None and split is not None and "|" in split and split in v.token_to_id and split in chunk.text:
        token, split = split, None
    pieces: list[str] | None = None
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
            where = (
                "this text" if text not in "".join(c.text for f in expl.fragments for c in f.chunks) else "this chunk"
            )
            return WhyNot(
                f"{text!r} cannot come from {where}: its text does not occur in it",
                (f"the chunk reads {chunk.text!r}",),
            )
        pieces = [text]
    elif not split:
        return WhyNot("nothing proposed")
    else:
        pieces = split_pieces(split)
    if not all(pieces):
        return WhyNot(f"{split!r} has an empty piece: write the pieces between the bars, as in Hel|lo")
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
        return _greedy(chunk, cuts, reasons, expl.text if fam == "rwkv" else None)
    return WhyNot("the engine's path differs" if reasons else "no explanation for this family", tuple(reasons))


def _final_cuts(chunk: Chunk) -> set[int]:
    out, pos = set(), 0
    for s in chunk.final:
        out.add(pos)
        pos += len(s)
    out.add(pos)
    return out


@dataclass(frozen=True, slots=True)
class _Life:
    """What the merge loop did to one span of the chunk: built at ``built`` (0: an initial
    symbol, -1: never), absorbed by ``absorbed`` (-1: a final symbol), or, never built, cut
    through by ``crossed`` while its parts were ``parts``."""

    built: int = -1
    absorbed: int = -1
    into: str = ""
    crossed: int = -1
    parts: tuple[str, ...] = ()
    edge: str = ""


def _life(chunk: Chunk, a: int, b: int) -> _Life:
    """Replays the chunk's own merge trace (``Chunk.steps``, numbered as the views number
    them) over symbol spans to see whether ``[a, b)`` was ever one symbol."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for sym in chunk.symbols:
        spans.append((pos, pos + len(sym)))
        pos += len(sym)
    built = 0 if (a, b) in spans else -1
    for n, step in enumerate(chunk.steps, 1):
        if step.kind != "merge":
            continue
        left, right = spans[step.at], spans[step.at + 1]
        new = (left[0], right[1])
        if built >= 0 and (a, b) in (left, right):
            return _Life(built, n, chunk.text[new[0] : new[1]])
        if built < 0 and (new[0] < a < new[1] or new[0] < b < new[1]):
            parts = tuple(chunk.text[max(x, a) : min(y, b)] for x, y in spans if x < b and y > a)
            return _Life(crossed=n, parts=parts, edge="start" if new[0] < a < new[1] else "end")
        spans[step.at : step.at + 2] = [new]
        if new == (a, b):
            built = n
    if built >= 0:
        return _Life(built)
    return _Life(parts=tuple(chunk.text[x:y] for x, y in spans if x < b and y > a))


def _merges(tok, chunk: Chunk, cuts, reasons: list[str], fam: str) -> WhyNot:
    """Which merge erased each proposed cut, and what became of each proposed token: built
    then absorbed into a longer symbol, or never built (a merge cut through it first, or no
    merge joins its parts)."""
    key = "rank" if fam == "bpe" else "score"

    def merge(n: int) -> str:
        step = chunk.steps[n - 1]
        return f"step {n} ({step.left!r} + {step.right!r}, {key} {step.rank if fam == 'bpe' else step.score:g})"

    erased: dict[int, int] = {}  # char offset -> the step that erased the cut there
    starts = [0]
    for s in chunk.symbols:
        starts.append(starts[-1] + len(s))
    for n, step in enumerate(chunk.steps, 1):
        if step.kind != "merge":
            continue
        erased.setdefault(starts[step.at + 1], n)
        del starts[step.at + 1]
    told: set[int] = set()  # steps a piece's story names already (an edge cut need not repeat them)
    stories = []
    finals = _final_cuts(chunk)
    for a, b, p in cuts:
        if p not in tok.vocab.token_to_id:
            continue
        life = _life(chunk, a, b)
        if life.built >= 0 and life.absorbed < 0:
            continue  # a final symbol: the engine's own piece
        if life.built >= 0:
            how = "was an initial symbol" if life.built == 0 else f"was built at {merge(life.built)}"
            stories.append(f"{p!r} {how}, then absorbed into {life.into!r} by {merge(life.absorbed)}")
            told.add(life.absorbed)
        elif life.crossed > 0:
            stories.append(f"{p!r} was never built: {merge(life.crossed)} joined across its {life.edge} while it was still "
                           + " ".join(repr(x) for x in life.parts))  # fmt: skip
            told.add(life.crossed)
        else:
            never = "" if fam != "bpe" or _bpe_builds(tok, p) else "; no merge of this vocab produces it"
            stories.append(f"{p!r} was never built: its parts stayed " + " ".join(repr(x) for x in life.parts)
                           + f" (no merge joins neighbouring parts){never}")  # fmt: skip
    inner = {a for a, _, _ in cuts[1:]}
    edges = {cuts[0][0], cuts[-1][1]}
    for c in sorted(inner | edges):
        if c in erased and c not in finals and (c in inner or erased[c] not in told):
            reasons.append(f"your cut at {c} was erased by {merge(erased[c])}")
    reasons += stories
    wrong = [c for c in sorted(inner | edges) if c not in finals]
    if not wrong and not any(a < c < b for a, b, _ in cuts for c in finals):
        return WhyNot("the engine made this split", tuple(reasons))
    return WhyNot(
        "the merges went another way: " + ("lowest rank first" if fam == "bpe" else "highest score first"),
        tuple(reasons),
    )


def _bpe_builds(tok, piece: str) -> bool:
    """Whether some merge of the vocab yields ``piece`` (else only a whole-word shortcut can)."""
    ranks = reference(tok.vocab).bpe_ranks()
    raw = [piece[:i].encode("utf-8", "surrogateescape") for i in range(len(piece) + 1)]
    return any((raw[i], raw[-1][len(raw[i]) :]) in ranks for i in range(1, len(piece)))


def _ugm(tok, d: UgmDetail, cuts, reasons: list[str]) -> WhyNot:
    """Total of the best path through the proposed pieces vs the best total."""
    n = len(d.normalized)
    back = [-DBL_MAX] * (n + 1)  # best total from each position to the end
    back[n] = 0.0
    for a, b, _, w in reversed(d.edges):
        if back[b] > -DBL_MAX and back[b] + w > back[a]:
            back[a] = back[b] + w
    trie = reference(tok.vocab).trie()
    unknown = {e[0]: e[3] for e in d.edges if e[2] == d.unk_id and e[1] == e[0] + 1}  # position -> its unk edge's score
    total = d.best[cuts[0][0]]
    for a, b, p in cuts:
        hit = trie.get(p.encode("utf-8", "surrogateescape"))
        if hit is None:
            if all(i in unknown for i in range(a, b)):  # a run of unknown characters: llama.cpp emits one [UNK]
                total += sum(unknown[i] for i in range(a, b))
                reasons.append(f"{p!r}: unknown ({b - a} character{'s' * (b - a != 1)} of score {unknown[a]:.4f}; "
                               "a run of them is one unknown token)")  # fmt: skip
                continue
            reasons.append(f"{p!r} is not a token the search can use")
            return WhyNot("the proposal cannot be a path of the lattice", tuple(reasons))
        reasons.append(f"{p!r}: score {hit[1]:.4f}")
        total += hit[1]
    total += back[cuts[-1][1]]
    best = d.best[n]
    if total >= best:
        return WhyNot(f"this split is on a best path (total {total:.4f})", tuple(reasons))
    reasons.append(f"best path through your split totals {total:.4f}; the chosen path totals {best:.4f}")
    return WhyNot(f"Viterbi keeps the higher total: yours is {best - total:.4f} lower", tuple(reasons))


def _greedy(chunk: Chunk, cuts, reasons: list[str], data: bytes | None) -> WhyNot:
    """The first proposed piece the greedy longest match did not take, and what it took.

    WPM matches are spelled as the ``▁``-word is (``chunk.text``); RWKV tokens are stored escaped
    (``\\n``), so their spans come from the input bytes they cover (``data``: the whole text)."""
    matches = [s for s in chunk.steps if s.kind == "match"]
    pos = 0
    spans = []
    for s in matches:
        if data is not None:  # characters of chunk.text before the step's bytes, and within them
            a = len(data[chunk.start : s.start].decode("utf-8", "replace"))
            text = data[s.start : s.end].decode("utf-8", "replace")
            spans.append((a, a + len(text), text))
            continue
        spans.append((pos, pos + len(s.token), s.token))
        pos += len(s.token)
    unknown = next((s for s in chunk.steps if s.kind == "unknown"), None)
    if unknown is not None:  # WPM: llama.cpp gives up on the word at the first byte no token starts
        return WhyNot(
            f"no token starts at byte {unknown.at} of {chunk.text!r}, so the whole word is [UNK]", tuple(reasons)
        )
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
