"""``TokenIds``: the tokenize view's ids as the app shares them, held as one numpy array.

A 10 MB text has ~3M tokens: as a tuple of Python ints they cost ~110 MB and a conversion
of hundreds of milliseconds on every result. ``TokenIds`` reads like that tuple (length,
indexing, iteration, ``==`` with a tuple or list of ints) without building it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np


class TokenIds(Sequence[int]):
    """Read-only token ids backed by an int32 or int64 array (a layout's own: no copy)."""

    __slots__ = ("_ids",)
    __hash__ = None  # type: ignore[assignment]  # equal to tuples, which hash otherwise

    def __init__(self, ids: np.ndarray) -> None:
        ids = np.asarray(ids)
        view = (ids if ids.dtype in (np.int32, np.int64) else ids.astype(np.int64)).view()
        view.flags.writeable = False
        self._ids = view

    @property
    def array(self) -> np.ndarray:
        """The ids as a read-only int32 or int64 array."""
        return self._ids

    def __len__(self) -> int:
        return len(self._ids)

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> TokenIds: ...
    def __getitem__(self, index: int | slice) -> int | TokenIds:
        if isinstance(index, slice):
            return TokenIds(self._ids[index])
        return int(self._ids[index])

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids.tolist())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TokenIds):
            return np.array_equal(self._ids, other._ids)
        if isinstance(other, (tuple, list)):
            return len(other) == len(self._ids) and np.array_equal(self._ids, np.array(other, dtype=np.int64))
        return NotImplemented

    def __repr__(self) -> str:
        head = self._ids[:8].tolist()
        return f"TokenIds({head}{' ...' if len(self._ids) > 8 else ''}, n={len(self._ids)})"
