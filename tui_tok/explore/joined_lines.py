"""``JoinedLines``: the lines of one newline-joined string, read by index without a list of them.

The vocabulary index (``vocab_index``) keeps every display piece once, in ``joined``; a list of
the pieces as separate strings cost as much again in object headers (gemma3, 262,144 pieces:
~23 MB beside a 7 MB ``joined``). This reads piece ``i`` as the slice between two line starts.

>>> import numpy as np
>>> lines = JoinedLines("a\\nbc\\n\\nd", np.array([0, 2, 5, 6]))
>>> len(lines), lines[1], lines[2], lines[-1], list(lines), lines[1:3]
(4, 'bc', '', 'd', ['a', 'bc', '', 'd'], ['bc', ''])
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np


class JoinedLines(Sequence[str]):
    """``joined.split("\\n")`` as a read-only sequence; ``starts``: where each line begins."""

    __slots__ = ("_joined", "_starts")

    def __init__(self, joined: str, starts: np.ndarray) -> None:
        self._joined = joined
        self._starts = starts  # numpy int64 (``VocabIndex.line_starts``, shared): no Python ints

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self._starts)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("line index out of range")
        end = int(self._starts[index + 1]) - 1 if index + 1 < n else len(self._joined)
        return self._joined[int(self._starts[index]) : end]

    def __iter__(self) -> Iterator[str]:
        return iter(self._joined.split("\n") if len(self._starts) else ())
