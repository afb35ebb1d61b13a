"""``Tokens``: what ``Tokenizer.tokenize`` returns, an immutable sequence of ``Token`` backed by columns.

A 0.5 MB text has ~160k tokens and a 10 MB one ~3M: as one Python object each they cost more than
llama.cpp's whole encode of the text (and hundreds of MB), yet most callers want the ids, the
spans as arrays, a count, or a few tokens around a position. So the tokens stay three int64
columns (ids, byte starts, byte ends, what ``Tokenizer.tokenize_arrays`` gives) and a reference
to the tokenizer's kind table, and a ``Token`` is built only when one is asked for: by index, by
iteration (in blocks, so a loop over 3M tokens never holds them all), or all at once by
``tolist()``. Slices are views of the same columns.

Equal to a list or tuple of the same ``Token`` values (``tokens == [Token(...), ...]``) and to
another ``Tokens`` of the same tokens; unhashable, as a list is. Pickles its columns and the kinds
of the ids it holds, not the vocabulary's whole table.

>>> from tui_tok.tokenizer.core.types import TokenKind
>>> kinds = [TokenKind.SPECIAL, TokenKind.NORMAL, TokenKind.NORMAL]
>>> toks = Tokens([0, 2, 1], [0, 0, 2], [0, 2, 5], kinds)
>>> len(toks), toks[1]
(3, Token(id=2, start=0, end=2, kind=<TokenKind.NORMAL: 'normal'>))
>>> toks.ids.tolist(), [t.end for t in toks[1:]]
([0, 2, 1], [2, 5])
>>> toks[:1] == [Token(0, 0, 0, TokenKind.SPECIAL)]
True

Does not tokenize: see ``tokenizer.py``.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain, repeat
from operator import attrgetter
from typing import Any, overload

import numpy as np

from tui_tok.tokenizer.core.gc_pause import gc_paused
from tui_tok.tokenizer.core.types import PieceArrays, Token, TokenKind

KindTable = Sequence[TokenKind] | Mapping[int, TokenKind]
"""Token id -> its display kind (``Tokenizer.token_kinds()``: a list whose index -1 is UNKNOWN, for
the null id llama.cpp's WPM and RWKV emit; a pickled ``Tokens`` gets a dict of the ids it holds)."""

BLOCK = 4096
"""Tokens built per step of an iteration: small enough to stay in the CPU cache (the ints and
tuples of a block are freed and reused by the next), large enough that the per-block numpy calls
cost nothing (measured in ``benchmarks/NOTES.md``, "Tokens")."""

REPR_HEAD = 3
"""Tokens shown at each end of the ``repr`` of a long sequence (all of them up to twice as many)."""

_new_tuple = tuple.__new__


class Tokens(Sequence[Token]):
    """Immutable sequence of ``Token`` (id, byte start, byte end, kind), stored as int64 columns.

    ``ids``, ``starts`` and ``ends`` are read-only numpy arrays (free: no copy, no object per
    token); ``len``, indexing, slicing (a ``Tokens`` view), iteration, ``in``, ``index``, ``count``
    and ``reversed`` work as on a tuple. ``tolist()`` builds every ``Token`` at once.
    """

    __slots__ = ("_ids", "_starts", "_ends", "_kinds")

    def __init__(self, ids: Iterable[int], starts: Iterable[int], ends: Iterable[int], kinds: KindTable) -> None:
        """Columns of equal length (any int sequence or array; kept as read-only int64 views, so
        a caller's own array stays writable) and the id -> kind table (kept by reference)."""
        self._ids = _column(ids)
        self._starts = _column(starts)
        self._ends = _column(ends)
        if not len(self._ids) == len(self._starts) == len(self._ends):
            raise ValueError(
                f"Tokens columns differ in length: {len(self._ids)} ids, {len(self._starts)} starts, {len(self._ends)} ends"
            )
        self._kinds = kinds

    @classmethod
    def from_tokens(cls, tokens: Iterable[Token]) -> Tokens:
        """The ``Tokens`` of ``Token`` values (each keeps its own kind)."""
        rows = list(tokens)
        kinds: dict[int, TokenKind] = {}
        for t in rows:
            if kinds.setdefault(t.id, t.kind) is not t.kind:
                raise ValueError(f"token id {t.id} has two kinds: {kinds[t.id].value} and {t.kind.value}")
        return cls([t.id for t in rows], [t.start for t in rows], [t.end for t in rows], kinds)

    @property
    def ids(self) -> np.ndarray:
        """The token ids (read-only int64 array)."""
        return self._ids

    @property
    def starts(self) -> np.ndarray:
        """Each token's first byte in the UTF-8 input (read-only int64 array)."""
        return self._starts

    @property
    def ends(self) -> np.ndarray:
        """One past each token's last byte (read-only int64 array)."""
        return self._ends

    def kind_of(self, token_id: int) -> TokenKind:
        """The display kind of ``token_id`` in this tokenization's table."""
        return self._kinds[token_id]

    def __len__(self) -> int:
        return len(self._ids)

    @overload
    def __getitem__(self, index: int) -> Token: ...

    @overload
    def __getitem__(self, index: slice) -> Tokens: ...

    def __getitem__(self, index: int | slice) -> Token | Tokens:
        if isinstance(index, slice):
            return Tokens(self._ids[index], self._starts[index], self._ends[index], self._kinds)
        i = operator.index(index)  # not a float, an array or a list of indices
        tid = int(self._ids[i])
        return _new_tuple(Token, (tid, int(self._starts[i]), int(self._ends[i]), self._kinds[tid]))

    def __iter__(self) -> Iterator[Token]:
        return chain.from_iterable(map(self._block, range(0, len(self._ids), BLOCK)))

    def __reversed__(self) -> Iterator[Token]:
        return iter(self[::-1])

    def _block(self, at: int) -> Iterator[Token]:
        """The ``Token`` values of ``[at, at + BLOCK)``, built at C level (no Python call per token)."""
        ids = self._ids[at : at + BLOCK].tolist()
        rows = zip(ids, self._starts[at : at + BLOCK].tolist(), self._ends[at : at + BLOCK].tolist(),
                   map(self._kinds.__getitem__, ids))  # fmt: skip
        return map(_new_tuple, repeat(Token), rows)

    def tolist(self) -> list[Token]:
        """Every ``Token``, in a new list (the cyclic collector paused while a long one is built:
        ``core/gc_pause.py``)."""
        with gc_paused(len(self._ids) * 4):  # ~4 bytes of text a token: what the pause is sized on
            ids = self._ids.tolist()
            rows = zip(ids, self._starts.tolist(), self._ends.tolist(), map(self._kinds.__getitem__, ids))
            return list(map(_new_tuple, repeat(Token), rows))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Tokens):
            if not (
                np.array_equal(self._ids, other._ids)
                and np.array_equal(self._starts, other._starts)
                and np.array_equal(self._ends, other._ends)
            ):
                return False
            if self._kinds is other._kinds:
                return True
            distinct = np.unique(self._ids).tolist()
            return [self._kinds[i] for i in distinct] == [other._kinds[i] for i in distinct]
        if isinstance(other, (list, tuple)):
            return len(other) == len(self) and all(map(operator.eq, self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which are unhashable

    def __repr__(self) -> str:
        n = len(self)
        if n <= 2 * REPR_HEAD:
            return f"Tokens({list(self)!r})"
        head = ", ".join(map(repr, self[:REPR_HEAD]))
        tail = ", ".join(map(repr, self[n - REPR_HEAD :]))
        return f"Tokens([{head}, ..., {tail}], len={n})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Columns and the kinds of the ids present (a dict), not the vocabulary's whole table."""
        distinct = np.unique(self._ids).tolist()
        kinds = {i: self._kinds[i] for i in distinct}
        return (Tokens, (self._ids, self._starts, self._ends, kinds))


def token_columns(tokens: Sequence[Token]) -> PieceArrays:
    """The ids, byte starts and byte ends of ``tokens`` as int64 arrays: a ``Tokens``' own columns (no
    ``Token`` built), else read from each ``Token`` (map + attrgetter keep the loops in C)."""
    if isinstance(tokens, Tokens):
        return tokens.ids, tokens.starts, tokens.ends
    n = len(tokens)
    ids, starts, ends = (
        np.fromiter(map(attrgetter(f), tokens), dtype=np.int64, count=n) for f in ("id", "start", "end")
    )
    return ids, starts, ends


def _column(values: Iterable[int]) -> np.ndarray:
    """``values`` as a read-only int64 view (a view: the caller's array keeps its own flags)."""
    arr = np.asarray(values if isinstance(values, (np.ndarray, Sequence)) else list(values))
    if arr.dtype != np.int64:
        if arr.size and arr.dtype.kind not in "iu":
            raise TypeError(f"Tokens columns hold integers, not {arr.dtype}")
        arr = arr.astype(np.int64)
    if arr.ndim != 1:
        raise ValueError(f"Tokens columns are one-dimensional, not of shape {arr.shape}")
    view = arr.view()
    view.flags.writeable = False
    return view
