"""``Cells``: how many terminal cells the characters before each character of a text take.

The token view wraps rows by cells (``layout``): a character in U+3000-U+D7FF or
U+10000-U+3FFFF takes two, an invisible one the cells of its drawn code (``⟨200B⟩``: six),
any other one. Held as one number per character, a 10 MB text's table was 36 MB per layout,
and a key keeps two layouts alive (the shown one and the next). Here only the *runs* of
characters wider than one cell are kept (a run: consecutive characters of one width), with
the cell where each run starts; everything between runs counts one cell a character. Prose
and code with some CJK hold a few thousand runs; a text alternating narrow and wide characters
at every character is the worst case, about 13 bytes per run.

``before(i)`` is the dense table's ``cells_before[i]``; ``chars_at(c)`` is
``searchsorted(cells_before, c, side="left")`` (the first character whose cells start at or
after ``c``), without the table (tests check both against it, ``dense``).

>>> cells = Cells.of_widths(np.array([1, 2, 2, 1, 6, 1], dtype=np.uint8))
>>> [cells.before(i) for i in range(7)], cells.total
([0, 1, 3, 5, 6, 12, 13], 13)
>>> cells.chars_at(np.array([0, 1, 2, 5, 7, 12, 13])).tolist()
[0, 1, 2, 3, 5, 5, 6]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SLICE = 1 << 20
"""Characters looked at a time by ``of_widths`` (its temporaries stay ~1 MB for a 10 MB text)."""


@dataclass(frozen=True, slots=True, eq=False)
class Cells:
    """The cells before each character of an ``n``-character text, as runs of wide characters."""

    n: int
    """Characters of the text."""
    starts: np.ndarray
    """int64 first character of each run, increasing; runs never touch one of the same width."""
    stops: np.ndarray
    """int64 one past the last character of each run."""
    widths: np.ndarray
    """uint8 cells of each character of the run (2 or more)."""
    cell_starts: np.ndarray
    """int64 cells before each run's first character."""

    @staticmethod
    def plain(n: int) -> Cells:
        """A text whose every character takes one cell."""
        empty = np.zeros(0, dtype=np.int64)
        return Cells(n, empty, empty, np.zeros(0, dtype=np.uint8), empty)

    @staticmethod
    def of_widths(widths: np.ndarray) -> Cells:
        """From each character's cells (uint8)."""
        starts: list[np.ndarray] = []
        stops: list[np.ndarray] = []
        n = len(widths)
        for at in range(0, n, SLICE):
            # a run starts where the width changes to one other than 1, and stops where it changes from it
            part = widths[max(0, at - 1) : at + SLICE + 1]
            change = np.flatnonzero(part[1:] != part[:-1]) + (max(0, at - 1) + 1)
            change = change[(change >= at) & (change < min(n, at + SLICE))]
            if at == 0 and n and widths[0] != 1:
                change = np.concatenate(([0], change))
            starts.append(change[widths[change] != 1])
            stops.append(change[(change > 0) & (widths[np.maximum(change - 1, 0)] != 1)])
        if n and widths[n - 1] != 1:
            stops.append(np.array([n], dtype=np.int64))
        s = np.concatenate(starts).astype(np.int64) if starts else np.zeros(0, dtype=np.int64)
        e = np.concatenate(stops).astype(np.int64) if stops else np.zeros(0, dtype=np.int64)
        return _with_cell_starts(n, s, e, widths[s].astype(np.uint8))

    @property
    def total(self) -> int:
        """Cells of the whole text."""
        return self.before(self.n)

    def before(self, i: int) -> int:
        """Cells taken by characters ``[0, i)``."""
        r = int(self.starts.searchsorted(i, side="left")) - 1
        if r < 0:
            return i
        s, e = int(self.starts[r]), int(self.stops[r])
        return int(self.cell_starts[r]) + (min(i, e) - s) * int(self.widths[r]) + max(0, i - e)

    def take(self, chars: np.ndarray) -> np.ndarray:
        """``before`` of each of ``chars`` (int64)."""
        chars = np.asarray(chars, dtype=np.int64)
        r = np.searchsorted(self.starts, chars, side="left") - 1
        if not len(self.starts):
            return chars.copy()
        rc = np.maximum(r, 0)
        s, e = self.starts[rc], self.stops[rc]
        inside = np.minimum(chars, e) - s
        got = self.cell_starts[rc] + inside * self.widths[rc] + np.maximum(0, chars - e)
        return np.where(r >= 0, got, chars)

    def chars_at(self, cells: np.ndarray) -> np.ndarray:
        """For each of ``cells``, the first character ``i`` with ``before(i) >= cell`` (int64; past
        the text's cells, a number over ``n``: callers clip to the line they search)."""
        cells = np.asarray(cells, dtype=np.int64)
        r = np.searchsorted(self.cell_starts, cells, side="left") - 1
        if not len(self.starts):
            return cells.copy()
        rc = np.maximum(r, 0)
        s, e, w, c0 = self.starts[rc], self.stops[rc], self.widths[rc].astype(np.int64), self.cell_starts[rc]
        run_end = c0 + (e - s) * w  # the cells before the run's stop
        # inside the run: the first of its characters starting at or after the cell (a ceiling division)
        got = np.where(cells <= run_end, s + (cells - c0 + w - 1) // w, e + (cells - run_end))
        return np.where(r >= 0, got, cells)

    def char_at(self, cell: int) -> int:
        """``chars_at`` of one cell (scalar: the greedy wrap calls it per row)."""
        r = int(self.cell_starts.searchsorted(cell, side="left")) - 1
        if r < 0:
            return cell
        s, e, w, c0 = int(self.starts[r]), int(self.stops[r]), int(self.widths[r]), int(self.cell_starts[r])
        run_end = c0 + (e - s) * w
        return s + (cell - c0 + w - 1) // w if cell <= run_end else e + (cell - run_end)

    def coded(self, a: int, b: int) -> np.ndarray:
        """Characters of ``[a, b)`` wider than two cells (int64, increasing): drawn codes."""
        keep = (self.widths > 2) & (self.stops > a) & (self.starts < b)
        found = [np.arange(max(s, a), min(e, b)) for s, e in zip(self.starts[keep].tolist(), self.stops[keep].tolist())]
        return np.concatenate(found).astype(np.int64) if found else np.zeros(0, dtype=np.int64)

    def splice(self, mid: Cells, char_a: int, char_b_old: int) -> Cells:
        """The cells of this text with characters ``[char_a, char_b_old)`` replaced by ``mid``'s."""
        head = _clipped(self, 0, char_a, 0)
        tail = _clipped(self, char_b_old, self.n, char_a + mid.n - char_b_old)
        parts = (head, (mid.starts + char_a, mid.stops + char_a, mid.widths), tail)
        s = np.concatenate([p[0] for p in parts])
        e = np.concatenate([p[1] for p in parts])
        w = np.concatenate([p[2] for p in parts]).astype(np.uint8)
        # runs of one width meeting at a seam become one (the form ``of_widths`` gives)
        join = np.flatnonzero((s[1:] == e[:-1]) & (w[1:] == w[:-1]))
        if len(join):
            keep = np.ones(len(s), dtype=bool)
            keep[join + 1] = False
            ends = np.ones(len(s), dtype=bool)
            ends[join] = False
            s, e, w = s[keep], e[ends], w[keep]
        return _with_cell_starts(self.n - (char_b_old - char_a) + mid.n, s, e, w)

    def dense(self) -> np.ndarray:
        """``before(i)`` for every ``i`` in ``[0, n]`` (int64; tests and small texts)."""
        return self.take(np.arange(self.n + 1, dtype=np.int64))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Cells)
            and self.n == other.n
            and all(np.array_equal(getattr(self, f), getattr(other, f)) for f in ("starts", "stops", "widths"))
        )

    __hash__ = None  # type: ignore[assignment]


def _clipped(cells: Cells, a: int, b: int, shift: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The runs of ``cells`` inside ``[a, b)`` (cut at its ends), moved by ``shift``."""
    lo = int(np.searchsorted(cells.stops, a, side="right"))
    hi = int(np.searchsorted(cells.starts, b, side="left"))
    s = np.maximum(cells.starts[lo:hi], a) + shift
    e = np.minimum(cells.stops[lo:hi], b) + shift
    return s, e, cells.widths[lo:hi]


def _with_cell_starts(n: int, starts: np.ndarray, stops: np.ndarray, widths: np.ndarray) -> Cells:
    extra = (stops - starts) * (widths.astype(np.int64) - 1)
    cell_starts = starts.copy()
    if len(extra) > 1:
        cell_starts[1:] += np.cumsum(extra[:-1])
    return Cells(n, starts, stops, widths, cell_starts)
