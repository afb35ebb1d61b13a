"""BPE results as int64 columns, and a fragment encoded in exact pieces (``Tokenizer.tokenize_arrays``).

No tuple per token: a 10 MB text has ~3M tokens. The pieces let a caller stop between them or
let other threads run; they are cut only where the pre-tokenizer proves a word ends.

A fast path: what it computes equals ``bpe/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from itertools import accumulate, chain
from operator import itemgetter
from typing import Any, Protocol

import numpy as np

from tui_tok.tokenizer.core.types import PieceArrays
from tui_tok.tokenizer.pretokenize import onepass
from tui_tok.tokenizer.pretokenize.offsets import decode
from tui_tok.tokenizer.pretokenize.tiled import Boundary

WordResult = tuple[tuple[int, ...], tuple[int, ...]]
"""One word's token ids and their byte lengths (``bpe/batch.py``'s)."""


class BpeEncoder(Protocol):
    """What the pieces need of ``bpe.encoder.BpeEncoder`` (not imported: it imports this module)."""

    spec: Any
    vocab: Any

    def encode_fragments_arrays(self, fragments: list[tuple[bytes, bool]]) -> list[PieceArrays]: ...

    def _words(self, text: str, *, long: bool) -> list[str]: ...

    def _lookup(self, words: list[str], *, long: bool) -> list[WordResult]: ...


_WRAPPED = ("hybriddna", "whitespace")
"""Models whose BPE is wrapped in another split (``bpe/models.py``): never cut here."""
_CONTEXT = 64
"""Characters past a piece's cut its words are split with (``tiled`` needs 4)."""


def result_arrays(results: list[WordResult]) -> PieceArrays:
    """``encoder._pieces`` as int64 columns (ids, starts, ends), read in C."""
    ids = np.fromiter(chain.from_iterable(map(itemgetter(0), results)), dtype=np.int64)
    lens = np.fromiter(chain.from_iterable(map(itemgetter(1), results)), dtype=np.int64, count=len(ids))
    ends = np.cumsum(lens)
    starts = ends - lens
    if len(ids) and ids.min() < 0:  # tokens of missing bytes (id -1) are dropped, as in _pieces
        keep = ids >= 0
        ids, starts, ends = ids[keep], starts[keep], ends[keep]
    return ids, starts, ends


def _next_cut(text: str, start: int, boundary: Boundary) -> int:
    """The first of ``boundary``'s cut points at or after ``start`` (the end when none), found
    without converting the whole text (``Boundary.positions`` wants its code points)."""
    i = text.find("\n", max(0, start - 1))
    while 0 <= i < len(text) - 1:
        window = np.frombuffer(text[i : i + 2].encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        if len(boundary.positions(window)):
            return i + 1
        i = text.find("\n", i + 1)
    return len(text)


def fragment_arrays_pieces(enc: BpeEncoder, data: bytes, *, piece_chars: int) -> Iterator[PieceArrays]:
    """``encode_fragments_arrays([(data, True)])[0]`` in pieces of about ``piece_chars``
    characters, spans relative to ``data``: a caller can stop between pieces (or let
    another thread run). Exact: the text is cut only at its pre-tokenizer's proven safe
    boundaries (``pretokenize.tiled``: a word always ends there), each piece's words are
    split with ``_CONTEXT`` characters of what follows in view and the words past the cut
    dropped again, and BPE is per word. One piece when the pre-tokenizer has no such
    boundaries, the decode changed offsets, or the model wraps BPE (hybriddna, whitespace).
    """
    plan = onepass.plan(tuple(enc.spec.regexes))
    boundary = getattr(plan, "boundary", None)
    text, omap = decode(data, escape=enc.vocab.escape_whitespaces) if data else ("", None)
    if boundary is None or omap is not None or len(text) <= piece_chars or enc.vocab.model in _WRAPPED:
        yield enc.encode_fragments_arrays([(data, True)])[0]
        return
    pos = byte_pos = 0
    while pos < len(text):
        cut = _next_cut(text, pos + piece_chars, boundary)
        words = enc._words(text[pos : cut + _CONTEXT], long=True)
        ends = list(accumulate(map(len, words)))
        k = bisect_left(ends, cut - pos) + 1
        if k > len(ends) or ends[k - 1] != cut - pos:  # not a word end after all: take the rest whole
            cut, words = len(text), enc._words(text[pos:], long=True)
            k = len(words)
        ids, starts, ends_b = result_arrays(enc._lookup(words[:k], long=True))
        yield ids, starts + byte_pos, ends_b + byte_pos
        byte_pos += len(text[pos:cut].encode("utf-8"))
        pos = cut
