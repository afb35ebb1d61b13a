"""Lay two tokenizations of one text under each other, aligned by byte offset.

The text is cut at every offset that no token of either side straddles; between two such cuts
both sides cover the same bytes, so their tokens form one column that can be padded to a
common width. A column differs when its tokens differ. ``render_rows`` turns the columns into
plain text lines (what ``tui-tok diff`` prints); the compare screen styles the same columns.

Does not compare anything itself: ``text_diff.py`` decides what is the same.

>>> from tui_tok.explore.diff.text_diff import DiffToken, diff_tokens
>>> d = diff_tokens(b"abc", [DiffToken(1, 0, 2, b"ab"), DiffToken(2, 2, 3, b"c")],
...                 [DiffToken(7, 0, 1, b"a"), DiffToken(8, 1, 2, b"b"), DiffToken(2, 2, 3, b"c")])
>>> [(c.start, c.end, c.differs) for c in align(d)]
[(0, 2, True), (2, 3, False)]
>>> print("\\n".join(render_rows(d, width=40)))
A │ab │c│
B │a│b│c│
   ^^^^
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from rich.cells import cell_len

from tui_tok.explore.diff.text_diff import DiffToken, TextDiff
from tui_tok.explore.display import marked
from tui_tok.explore.visible import visible


@dataclass(frozen=True, slots=True)
class Column:
    """The tokens of both sides over one stretch of bytes that neither side cuts differently."""

    start: int
    end: int
    a: tuple[int, ...]
    """Indices into ``TextDiff.a``."""
    b: tuple[int, ...]
    """Indices into ``TextDiff.b``."""
    differs: bool


def align(diff: TextDiff) -> list[Column]:
    """The columns of ``diff``, in text order (zero-width BOS/EOS join the column at their offset)."""
    n = len(diff.text)
    straddled = bytearray(n + 1)
    for side in (diff.a, diff.b):
        for t in side:
            if t.end - t.start > 1:
                straddled[t.start + 1 : t.end] = b"\x01" * (t.end - t.start - 1)
    cuts = sorted({0, n, *(t.start for t in diff.a + diff.b), *(t.end for t in diff.a + diff.b)})
    cuts = [c for c in cuts if 0 <= c <= n and not straddled[c]]
    if not cuts or cuts[-1] != n:
        cuts.append(n)
    groups: dict[int, tuple[list[int], list[int]]] = {}
    for which, side in enumerate((diff.a, diff.b)):
        for i, t in enumerate(side):
            k = max(0, bisect.bisect_right(cuts, t.start) - 1)
            if k == len(cuts) - 1 and t.start < n:  # only a zero-width token sits at the very end
                k -= 1
            groups.setdefault(k, ([], []))[which].append(i)
    un_a, un_b = diff.unmatched()
    cols = []
    for k in sorted(groups):
        ia, ib = groups[k]
        end = cuts[k + 1] if k + 1 < len(cuts) else n
        differs = any(i in un_a for i in ia) or any(i in un_b for i in ib)
        cols.append(Column(cuts[k], end, tuple(ia), tuple(ib), differs))
    return cols


def show_piece(piece: bytes) -> str:
    """A piece as one line of text with the marks of every view (``display.marked``): whitespace
    and controls visible, a format character as its code, bad UTF-8 as \\xHH."""
    return visible(marked(piece))


def cell_texts(tokens: tuple[DiffToken, ...], idx: tuple[int, ...]) -> list[str]:
    return [show_piece(tokens[i].piece) for i in idx]


@dataclass(frozen=True, slots=True)
class Cell:
    """One column as drawn: both sides' pieces joined by ``│`` and padded to one width."""

    a: str
    b: str
    differs: bool


def wrap_cells(diff: TextDiff, *, width: int, columns: list[Column] | None = None) -> list[list[Cell]]:
    """The columns as padded cells, cut into display rows of at most ``width`` cells (a wide
    character counts two: A's and B's rows stay aligned) (a column wider than ``width`` gets a
    row of its own). Each cell ends with ``│``."""
    cols = align(diff) if columns is None else columns
    rows: list[list[Cell]] = [[]]
    used = 0
    for col in cols:
        ca = "│".join(cell_texts(diff.a, col.a))
        cb = "│".join(cell_texts(diff.b, col.b))
        wa, wb = cell_len(ca), cell_len(cb)
        w = max(wa, wb) + 1
        if used + w > width and rows[-1]:
            rows.append([])
            used = 0
        rows[-1].append(Cell(ca + " " * (w - 1 - wa) + "│", cb + " " * (w - 1 - wb) + "│", col.differs))
        used += w
    return rows


def render_rows(diff: TextDiff, *, width: int = 100, columns: list[Column] | None = None) -> list[str]:
    """Plain-text A/B rows, wrapped at ``width``, with ``^`` under the columns that differ."""
    lines: list[str] = []
    for row in wrap_cells(diff, width=max(width - 3, 8), columns=columns):
        lines.append(("A │" + "".join(c.a for c in row)).rstrip())
        lines.append(("B │" + "".join(c.b for c in row)).rstrip())
        marks = "   " + "".join(("^" if c.differs else " ") * cell_len(c.a) for c in row)
        if marks.strip():
            lines.append(marks.rstrip())
    return lines
