"""Two tokenizations of one text, compared token by token: the first difference and the stretches that differ.

A token is compared as ``(start byte, end byte, piece bytes)``: two vocabularies may give the same
piece different ids, and that is the same tokenization. BOS/EOS are tokens like the others
(zero-width spans, their piece text). The first difference is the first index where the two lists
differ; its byte is the smaller start offset of the two tokens there, or the text's length when one
list is a prefix of the other.

Does not lay the two sides out for display (``align.py``) nor run a tokenizer beyond ``tokens_of``.

>>> a = (DiffToken(1, 0, 2, b"ab"), DiffToken(2, 2, 3, b"c"))
>>> b = (DiffToken(7, 0, 1, b"a"), DiffToken(8, 1, 3, b"bc"))
>>> d = diff_tokens(b"abc", a, b)
>>> d.same, d.first.index, d.first.byte
(False, 0, 0)
>>> diff_tokens(b"abc", a, (DiffToken(5, 0, 2, b"ab"), DiffToken(6, 2, 3, b"c"))).same
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

CompareBy = Literal["piece", "id"]
"""``piece``: tokens agree when span and piece bytes agree (two GGUFs); ``id``: when ids agree
(a GGUF and its Hugging Face original share the id space, but not always the offsets)."""


@dataclass(frozen=True, slots=True)
class DiffToken:
    """One token as the comparison sees it."""

    id: int
    """Token id in its own vocabulary."""
    start: int
    """First byte of the input it covers."""
    end: int
    """One past its last byte (``start == end`` for an added BOS/EOS)."""
    piece: bytes
    """What the token renders as (special tokens as their text)."""

    def key(self, by: CompareBy = "piece") -> tuple[int, int, bytes] | int:
        """What two tokens must share to count as the same."""
        return self.id if by == "id" else (self.start, self.end, self.piece)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "start": self.start, "end": self.end,
                "piece": self.piece.decode("utf-8", "backslashreplace")}  # fmt: skip


@dataclass(frozen=True, slots=True)
class FirstDifference:
    """Where the two token lists first part."""

    index: int
    """Token index of the first difference."""
    byte: int
    """The smaller start offset of the two tokens there (the text length past a list's end)."""
    a: DiffToken | None
    """A's token at ``index`` (None past A's end)."""
    b: DiffToken | None
    """B's token at ``index`` (None past B's end)."""

    def to_json(self) -> dict[str, Any]:
        return {"byte": self.byte, "index": self.index,
                "a": None if self.a is None else self.a.to_json(),
                "b": None if self.b is None else self.b.to_json()}  # fmt: skip


@dataclass(frozen=True, slots=True)
class TextDiff:
    """Both tokenizations of ``text`` and how they compare."""

    text: bytes
    """The input, as UTF-8 bytes."""
    a: tuple[DiffToken, ...]
    """Side A's tokens, in order."""
    b: tuple[DiffToken, ...]
    """Side B's tokens, in order."""
    first: FirstDifference | None
    """The first difference, None when the two agree."""
    by: CompareBy = "piece"
    """How tokens were compared."""

    @property
    def same(self) -> bool:
        return self.first is None

    def to_json(self) -> dict[str, Any]:
        """``{"same", "a": {"ids"}, "b": {"ids"}, "first_difference"}`` as ``tui-tok diff --json`` prints."""
        return {
            "same": self.same,
            "a": {"ids": [t.id for t in self.a], "count": len(self.a)},
            "b": {"ids": [t.id for t in self.b], "count": len(self.b)},
            "first_difference": None if self.first is None else self.first.to_json(),
        }

    def unmatched(self) -> tuple[frozenset[int], frozenset[int]]:
        """Indices of A's and B's tokens that have no equal token on the other side (the highlight)."""
        if self.by == "id":  # ids repeat and offsets may disagree: match them in order instead
            return _unmatched_in_order(self.a, self.b)
        keys_a = {t.key() for t in self.a}
        keys_b = {t.key() for t in self.b}
        return (frozenset(i for i, t in enumerate(self.a) if t.key() not in keys_b),
                frozenset(i for i, t in enumerate(self.b) if t.key() not in keys_a))  # fmt: skip


def first_difference(
    text_len: int, a: Sequence[DiffToken], b: Sequence[DiffToken], *, by: CompareBy = "piece"
) -> FirstDifference | None:
    """The issue's rule: first index where the tokens differ, at the smaller start of the two."""
    for i, (ta, tb) in enumerate(zip(a, b)):
        if ta.key(by) != tb.key(by):
            return FirstDifference(i, min(ta.start, tb.start), ta, tb)
    if len(a) == len(b):
        return None
    i = min(len(a), len(b))
    return FirstDifference(i, text_len, a[i] if i < len(a) else None, b[i] if i < len(b) else None)


def first_in_text(diff: TextDiff) -> FirstDifference | None:
    """The first difference among the tokens that cover text: the added BOS/EOS (zero-width)
    left out. When only the specials differ, ``diff.first`` is at byte 0 and this is None (the
    text itself tokenizes the same); its ``index`` counts A's text tokens.

    >>> bos = DiffToken(1, 0, 0, b"<s>")
    >>> d = diff_tokens(b"ab", (bos, DiffToken(5, 0, 2, b"ab")), (DiffToken(5, 0, 2, b"ab"),))
    >>> d.first.byte, first_in_text(d)
    (0, None)
    """
    if diff.first is None:
        return None
    a = [t for t in diff.a if t.end > t.start]
    b = [t for t in diff.b if t.end > t.start]
    return first_difference(len(diff.text), a, b, by=diff.by)


def diff_tokens(text: bytes, a: Sequence[DiffToken], b: Sequence[DiffToken], *, by: CompareBy = "piece") -> TextDiff:
    """Compare two token lists of ``text``."""
    return TextDiff(text, tuple(a), tuple(b), first_difference(len(text), a, b, by=by), by)


def tokens_of(tok: Any, text: bytes, *, add_special: bool = True, parse_special: bool = False) -> tuple[DiffToken, ...]:
    """``tok`` (a ``Tokenizer``) run on ``text``, each token with its span and piece."""
    pieces: dict[int, bytes] = {}
    out = []
    tokens = tok.tokenize(text, add_special=add_special, parse_special=parse_special)
    for tid, start, end in zip(tokens.ids.tolist(), tokens.starts.tolist(), tokens.ends.tolist()):  # no Token each
        piece = pieces.get(tid)
        if piece is None:
            piece = pieces[tid] = tok.token_to_piece(tid, special=True)
        out.append(DiffToken(tid, start, end, piece))
    return tuple(out)


def diff_texts(
    tok_a: Any, tok_b: Any, text: str | bytes, *, add_special: bool = True, parse_special: bool = False
) -> TextDiff:
    """Tokenize ``text`` with both tokenizers and compare.

    >>> from tui_tok.loader import load_tokenizer                        # doctest: +SKIP
    >>> diff_texts(load_tokenizer(a), load_tokenizer(b), "Hello").same   # doctest: +SKIP
    True
    """
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    opts = {"add_special": add_special, "parse_special": parse_special}
    return diff_tokens(data, tokens_of(tok_a, data, **opts), tokens_of(tok_b, data, **opts))


def _unmatched_in_order(a: Sequence[DiffToken], b: Sequence[DiffToken]) -> tuple[frozenset[int], frozenset[int]]:
    """Tokens outside the longest common prefix and suffix of the two id lists."""
    n = min(len(a), len(b))
    lo = 0
    while lo < n and a[lo].id == b[lo].id:
        lo += 1
    hi = 0
    while hi < n - lo and a[len(a) - 1 - hi].id == b[len(b) - 1 - hi].id:
        hi += 1
    return frozenset(range(lo, len(a) - hi)), frozenset(range(lo, len(b) - hi))
