"""The encoder contract: one required method, and every optional one built on it.

An encoder runs one family's algorithm on one raw fragment: the special-token partition
(``special/partition.py``) has already cut the input, and ``Tokenizer`` adds BOS/EOS/SEP; an
encoder sees only the bytes between special tokens. ``encode_fragment`` is all a family must
write (its ``reference.py`` is exactly that); the other methods here give the same answers from
it, and a family's encoder overrides those it makes faster (ids without spans, many fragments
in one batch, columns instead of tuples). ``Tokenizer`` calls them directly: there is no
optional method to probe for. Every override must equal its default (``tests/tokenizer/test_encoder.py``).

>>> class Bytes(Encoder):
...     def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
...         return [(b, i, i + 1) for i, b in enumerate(text)]
>>> Bytes().encode_fragments_ids([(b"hi", True), (b"!", False)])
[[104, 105], [33]]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from tui_tok.tokenizer.core.types import Piece, PieceArrays, piece_arrays

Fragments = list[tuple[bytes, bool]]
"""Raw fragments of one text in order, each with its ``after_special`` flag."""


class Encoder:
    """Base of every family's encoder (and of the wrapped references)."""

    FRESH_IDS: ClassVar[bool] = False
    """True when ``encode_fragment_ids`` returns a new list on every call (never one it keeps,
    e.g. in a cache): ``Tokenizer.encode`` then hands a one-fragment text's list to the caller
    without copying it (``tests/tokenizer/test_fresh_ids.py``). The default builds a new list."""

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """(id, start, end) per token of ``text``, byte offsets into it. ``after_special`` is true
        for a text's first fragment and for one that follows a special token (SPM's space prefix)."""
        raise NotImplementedError(f"{type(self).__name__} must implement encode_fragment")

    def encode_fragment_ids(self, text: bytes, *, after_special: bool) -> list[int]:
        """The ids of ``encode_fragment`` (what ``Tokenizer.encode`` needs: no spans)."""
        return [tid for tid, _, _ in self.encode_fragment(text, after_special=after_special)]

    def encode_fragments(self, fragments: Fragments) -> list[list[Piece]]:
        """``encode_fragment`` of each fragment of one text (an override may batch their words)."""
        return [self.encode_fragment(text, after_special=after) for text, after in fragments]

    def encode_fragments_ids(self, fragments: Fragments) -> list[list[int]]:
        """``encode_fragment_ids`` of each fragment of one text."""
        return [self.encode_fragment_ids(text, after_special=after) for text, after in fragments]

    def encode_fragments_arrays(self, fragments: Fragments) -> list[PieceArrays]:
        """``encode_fragments`` as int64 columns (ids, starts, ends) per fragment."""
        return list(map(piece_arrays, self.encode_fragments(fragments)))

    def fragment_arrays_pieces(self, data: bytes, *, piece_chars: int) -> Iterator[PieceArrays]:
        """``encode_fragments_arrays([(data, True)])[0]`` in consecutive pieces of about
        ``piece_chars`` characters, cut only where that is exact; by default one piece."""
        del piece_chars
        yield self.encode_fragments_arrays([(data, True)])[0]

    def prepare(self) -> None:
        """Build now the tables otherwise built on first need (by default there are none)."""


class Wrapped(Encoder):
    """An object with only ``encode_fragment`` (a family's ``ReferenceEncoder``) as an ``Encoder``."""

    def __init__(self, inner: object) -> None:
        self.inner = inner

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        return self.inner.encode_fragment(text, after_special=after_special)  # type: ignore[attr-defined,no-any-return]
