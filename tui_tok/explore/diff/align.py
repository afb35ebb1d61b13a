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

from tui_tok.explore.diff.text_diff import DiffToken, TextDiff


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
    """A piece as one line of text: control characters visible, bad UTF-8 as \\xHH."""
    text = piece.decode("utf-8", "backslashreplace")
    return text.replace("\n", "↵").replace("\t", "→").replace("\r", "␍").replace(" ", "·")


def cell_texts(tokens: tuple[DiffToken, ...], idx: tuple[int, ...]) -> list[str]:
    return [show_piece(tokens[i].piece) for i in idx]


def render_rows(diff: TextDiff, *, width: int = 100, columns: list[Column] | None = None) -> list[str]:
    """Plain-text A/B rows, wrapped at ``width``, with ``^`` under the columns that differ.

    Each token is followed by ``│``; a column is padded to the wider side.
    """
    cols = align(diff) if columns is None else columns
    lines: list[str] = []
    row_a, row_b, marks = "A │", "B │", "   "
    for col in cols:
        ca = "│".join(cell_texts(diff.a, col.a))
        cb = "│".join(cell_texts(diff.b, col.b))
        w = max(len(ca), len(cb)) + 1
        if len(row_a) + w > width and len(row_a) > 3:
            lines += [row_a, row_b] + ([marks.rstrip()] if marks.strip() else [])
            row_a, row_b, marks = "A │", "B │", "   "
        row_a += ca.ljust(w - 1) + "│"
        row_b += cb.ljust(w - 1) + "│"
        marks += ("^" if col.differs else " ") * w
    lines += [row_a.rstrip(), row_b.rstrip()] + ([marks.rstrip()] if marks.strip() else [])
    return lines
