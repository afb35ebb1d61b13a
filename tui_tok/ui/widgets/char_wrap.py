"""``AdaptiveWrappedDocument``: the editor's wrapped document, wrapped at the character with numpy for long texts.

Textual's ``WrappedDocument`` word-wraps every line in Python and keeps a list per line and a
tuple per row: a 10 MB paste held the UI thread for seconds in ``wrap_range`` and ``wrap`` (a
``compute_wrap_offsets`` call per line), and each later edit that adds a line walks every row
below it. Up to ``BIG_CHARS`` characters it is used as it is (word wrap, as Textual draws
it). From there on lines wrap at the character: every row of a line but its last is filled,
and a character that would not fit starts the next row. The row count of every line is then
computed at once with numpy from a table of cell widths (each character as the editor draws
it, ``display.editor_text``, measured by rich), and the per-line and per-row lists Textual
reads (``textual_compat.set_wrap_tables``) become views computed on demand: only
the lines drawn or navigated are wrapped in Python (lines with tabs, or wider than the box
with wide characters). An edit re-counts the rows of the lines it replaced. Below
``SMALL_CHARS`` (after an edit) word wrap comes back.

Leaves out rich's grapheme rules (a variation selector widening the character before it):
widths are summed per character, so such a row may overflow by a cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import methodcaller
from typing import Any

import numpy as np
from rich.cells import get_character_cell_size
from textual.expand_tabs import get_tab_widths
from textual.widgets.text_area import Location, WrappedDocument

from tui_tok.explore.display import editor_text
from tui_tok.ui.textual_compat import (
    cell_width_ranges,
    line_count_wrapped,
    set_wrap_settings,
    set_wrap_tables,
    wrap_settings,
)

BIG_CHARS = 200_000
"""From this many characters (at a full wrap) lines wrap at the character."""
SMALL_CHARS = 100_000
"""Below this many characters (after an edit) word wrap comes back."""

_BMP_WIDTHS: np.ndarray | None = None


def bmp_widths() -> np.ndarray:
    """Cells of each code point below U+10000 as the editor draws it (tab: 0, counted apart).

    rich's width table filled in by ranges, then the characters ``editor_text`` draws as
    another character (controls, invisible ones) measured as drawn.
    """
    global _BMP_WIDTHS
    if _BMP_WIDTHS is None:
        table = np.ones(0x10000, dtype=np.int64)
        ranges = cell_width_ranges()
        if ranges is None:  # measured one by one (slower, once)
            table[:] = [get_character_cell_size(chr(cp)) for cp in range(0x10000)]
        for start, end, width in ranges or ():
            if start < 0x10000:
                table[start : min(end, 0xFFFF) + 1] = width
        table[:32] = 0
        table[0x7F:0xA0] = 0
        everything = "".join(map(chr, range(0x10000)))
        shown = editor_text(everything)
        if len(shown) == len(everything):  # one drawn character per character, as documented
            drawn = np.frombuffer(shown.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            for cp in np.flatnonzero(drawn != np.arange(0x10000, dtype=np.uint32)).tolist():
                table[cp] = get_character_cell_size(shown[cp])
        else:
            for cp in range(0x10000):
                table[cp] = sum(get_character_cell_size(c) for c in editor_text(chr(cp)))
        table[9] = 0
        _BMP_WIDTHS = table
    return _BMP_WIDTHS


def line_cells(lines: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells of each line as drawn with its tabs taken as no cell, whether each line is
    *plain* (every character one cell, no tab: its rows are a division), and its tab count.
    ASCII lines are measured by length (controls are drawn as one-cell pictures); the others
    through ``bmp_widths``, all at once."""
    n = len(lines)
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=n)
    tabs = np.fromiter(map(methodcaller("count", "\t"), lines), dtype=np.int64, count=n)
    cells = lengths - tabs
    plain = tabs == 0
    wide = np.flatnonzero(~np.fromiter(map(str.isascii, lines), dtype=bool, count=n))
    if not len(wide):
        return cells, plain, tabs
    some = [lines[i] for i in wide.tolist()]
    bounds = np.concatenate(([0], np.cumsum(lengths[wide])))
    cps = np.frombuffer("".join(some).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    bmp = cps < 0x10000
    if bmp.all():
        widths = bmp_widths()[cps]
    else:
        widths = np.empty(len(cps), dtype=np.int64)
        widths[bmp] = bmp_widths()[cps[bmp]]
        astral, where = np.unique(cps[~bmp], return_inverse=True)
        sizes = [get_character_cell_size(editor_text(chr(cp))) for cp in astral.tolist()]
        widths[~bmp] = np.array(sizes, dtype=np.int64)[where]
    cum_cells = np.concatenate(([0], np.cumsum(widths)))
    cum_odd = np.concatenate(([0], np.cumsum(widths != 1)))  # tabs are 0 wide, so odd too
    cells[wide] = cum_cells[bounds[1:]] - cum_cells[bounds[:-1]]
    plain[wide] = cum_odd[bounds[1:]] == cum_odd[bounds[:-1]]
    return cells, plain, tabs


def char_widths(lines: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Cells of every character of ``lines`` as drawn (tabs: 0), one array for all of them, and
    where each line's characters start in it (then the total)."""
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    bounds = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    cps = np.frombuffer("".join(lines).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    bmp = cps < 0x10000
    if bmp.all():
        return bmp_widths()[cps], bounds
    widths = np.empty(len(cps), dtype=np.int64)
    widths[bmp] = bmp_widths()[cps[bmp]]
    astral, where = np.unique(cps[~bmp], return_inverse=True)
    sizes = [get_character_cell_size(editor_text(chr(cp))) for cp in astral.tolist()]
    widths[~bmp] = np.array(sizes, dtype=np.int64)[where]
    return widths, bounds


def greedy_rows(lines: Sequence[str], width: int) -> np.ndarray:
    """Rows of each of ``lines`` (without tabs) wrapped at the character as ``char_wrap_offsets``
    wraps them, for all lines at once: each row takes the characters whose cells still fit (a
    character wider than the row takes one of its own), found by a search in the running sum of
    cell widths (a row holds at least one character of some width), one step per row of the longest line (a Python loop over every character of a
    few thousand wide lines held the UI thread for ~0.25 s per wrap of a 10 MB text)."""
    widths, bounds = char_widths(lines)
    cum = np.concatenate(([0], np.cumsum(widths)))
    rows = np.ones(len(lines), dtype=np.int64)
    active = np.arange(len(lines))
    at = bounds[:-1].copy()
    while len(active):
        fits = np.searchsorted(cum, cum[at] + width, side="right") - 1
        # a row takes at least its first character of some width (with the zero-width ones before it)
        nxt = np.maximum(fits, np.searchsorted(cum, cum[at], side="right"))
        more = nxt < bounds[1:][active]
        active, at = active[more], nxt[more]
        rows[active] += 1
    return rows


def char_wrap_offsets(line: str, width: int, tab_width: int) -> list[int]:
    """Where ``line`` (as drawn) breaks into rows of ``width`` cells, at the character."""
    if width <= 0:
        return []
    tab_widths = iter([w for _, w in get_tab_widths(line, min(tab_width, width))])
    offsets: list[int] = []
    used = 0
    for i, ch in enumerate(line):
        w = next(tab_widths, 1) if ch == "\t" else get_character_cell_size(ch)
        if used + w > width and used:
            offsets.append(i)
            used = 0
        used += w
    return offsets


class _View:
    """A read-only sequence computed on demand from its document."""

    def __init__(self, owner: AdaptiveWrappedDocument) -> None:
        self._owner = owner


class _LineWrapOffsets(_View):
    """``_wrap_offsets``: line -> where it wraps."""

    def __len__(self) -> int:
        return len(self._owner._rows)

    def __getitem__(self, line: int) -> list[int]:
        return self._owner.line_offsets(line)


class _LineTabWidths(_View):
    """``_tab_width_cache``: line -> its tabs' widths."""

    def __len__(self) -> int:
        return len(self._owner._rows)

    def __getitem__(self, line: int) -> list[int]:
        owner = self._owner
        shown = owner.document[_index(line, len(owner._rows))]
        return [w for _, w in get_tab_widths(shown, wrap_settings(owner)[1])] if "\t" in shown else []


class _LineRows(_View):
    """``_line_index_to_offsets``: line -> its rows."""

    def __len__(self) -> int:
        return len(self._owner._rows)

    def __getitem__(self, line: int) -> list[int]:
        starts = self._owner.row_starts()
        line = _index(line, len(starts) - 1)
        return list(range(int(starts[line]), int(starts[line + 1])))


class _RowLines(_View):
    """``_offset_to_line_info``: row -> (line, section)."""

    def __len__(self) -> int:
        return self._owner.height

    def __getitem__(self, row: int) -> tuple[int, int]:
        starts = self._owner.row_starts()
        row = _index(row, int(starts[-1]))
        line = int(np.searchsorted(starts, row, side="right")) - 1
        return line, row - int(starts[line])


def _index(i: int, n: int) -> int:
    if i < 0:
        i += n
    if not 0 <= i < n:
        raise IndexError(i)
    return i


class AdaptiveWrappedDocument(WrappedDocument):
    """``WrappedDocument`` that wraps long texts at the character, with numpy (module doc);
    its ``height`` is computed once per (re-)wrap."""

    _by_char = False
    _height: int | None = None
    _rows: np.ndarray = np.zeros(0, dtype=np.int64)
    """Rows of each line (character wrap)."""
    _row_starts: np.ndarray | None = None
    _offsets: dict[int, list[int]] | None = None
    _cells: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    """``line_cells`` of every line (character wrap; they do not depend on the width)."""
    _cells_of: object = None
    """The document and its version ``_cells`` were measured on."""
    _rows_of: tuple[object, ...] | None = None
    """The width, tab width and ``_cells`` that ``_rows`` were counted for (None: an edit changed them)."""

    @property
    def height(self) -> int:
        if self._by_char:
            return int(self.row_starts()[-1])
        if self._height is None:
            self._height = WrappedDocument.height.fget(self)  # type: ignore[attr-defined]
        return self._height

    def _n_chars(self) -> int:
        n = getattr(self.document, "n_chars", None)
        return int(n) if n is not None else len(self.document.text)

    def wrap(self, width: int, tab_width: int | None = None) -> None:
        self._height = None
        if self._n_chars() < BIG_CHARS:
            self._by_char = False
            self._cells = self._rows_of = None
            super().wrap(width, tab_width)
            self._height = None
            return
        set_wrap_settings(self, width, tab_width)
        self._by_char = True
        lines = self._exact_lines()
        if self._cells is None or self._cells_of != self._version() or len(self._cells[0]) != len(lines):
            self._cells = line_cells(lines)
        settings = (width, tab_width, self._cells)
        if self._rows_of is None or any(a is not b and a != b for a, b in zip(self._rows_of, settings)):
            # (TextArea wraps again at the width it has when it is shown: the same rows)
            self._rows = self._count_rows(lines, self._cells)
            self._rows_of = settings
            self._changed()
        set_wrap_tables(
            self,
            offsets=_LineWrapOffsets(self),
            tab_widths=_LineTabWidths(self),
            line_rows=_LineRows(self),
            row_lines=_RowLines(self),
        )

    def wrap_range(self, start: Location, old_end: Location, new_end: Location) -> None:
        self._height = None
        n_chars = self._n_chars()
        if self._by_char and n_chars < SMALL_CHARS or not self._by_char and n_chars >= BIG_CHARS:
            self.wrap(*wrap_settings(self))
            return
        if not self._by_char:
            self._cells = None
            super().wrap_range(start, old_end, new_end)
            self._height = None
            return
        n_lines = self.document.line_count
        old_n = len(self._rows)
        top = min(max(min(start[0], old_end[0]), 0), old_n - 1, n_lines - 1)
        old_bottom = min(max(start[0], old_end[0]), old_n - 1)
        new_bottom = min(max(start[0], new_end[0]), n_lines - 1)
        new_lines = self._exact_lines()[top : new_bottom + 1]
        new_cells = line_cells(new_lines)
        if self._cells is not None:
            self._cells = tuple(  # type: ignore[assignment]
                np.concatenate((old[:top], new, old[old_bottom + 1 :])) for old, new in zip(self._cells, new_cells)
            )
        new_rows = self._count_rows(new_lines, new_cells)
        self._rows = np.concatenate((self._rows[:top], new_rows, self._rows[old_bottom + 1 :]))
        self._rows_of = None
        self._changed()

    def _version(self) -> tuple[int, int]:
        return id(self.document), getattr(self.document, "version", -1)

    def _changed(self) -> None:
        self._cells_of = self._version() if self._cells is not None else None
        self._row_starts = None
        self._offsets = {}

    def _exact_lines(self) -> list[str]:
        lines = getattr(self.document, "exact_lines", None)
        return lines if lines is not None else self.document.lines

    def row_starts(self) -> np.ndarray:
        """First row of each line, then the row count."""
        if self._row_starts is None:
            self._row_starts = np.concatenate(([0], np.cumsum(self._rows))).astype(np.int64)
        return self._row_starts

    def _count_rows(self, lines: list[str], measured: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
        """Rows of each of ``lines`` (exact text, ``measured`` by ``line_cells``) at the current width."""
        width, tab_width = wrap_settings(self)
        if not width:
            return np.ones(len(lines), dtype=np.int64)
        cells, plain, tabs = measured
        rows = np.maximum(1, (cells + width - 1) // width)
        odd = ~plain & (cells + tabs * min(tab_width, width) > width)  # tabs or wide characters, may not fit
        wide = np.flatnonzero(odd & (tabs == 0))
        if len(wide):
            rows[wide] = greedy_rows([lines[i] for i in wide.tolist()], width)
        # a line with tabs: wrapped in Python (a tab's width depends on its column; few)
        for i in np.flatnonzero(odd & (tabs > 0)).tolist():
            rows[i] = len(char_wrap_offsets(editor_text(lines[i]), width, tab_width)) + 1
        return rows

    def line_offsets(self, line: int) -> list[int]:
        """Where line ``line`` wraps (character wrap), cached until the next edit."""
        line = _index(line, len(self._rows))
        cache = self._offsets if self._offsets is not None else {}
        self._offsets = cache
        hit = cache.get(line)
        if hit is None:
            rows = int(self._rows[line])
            if rows == 1:
                hit = []
            else:
                shown = self.document[line]
                width, tab_width = wrap_settings(self)
                if self._cells is not None and self._cells[1][line]:
                    hit = list(range(width, len(shown), width))
                else:
                    hit = char_wrap_offsets(shown, width, tab_width)
            cache[line] = hit
        return hit

    def location_to_offset(self, location: Location) -> Any:
        # clamped to the lines there are: undoing a paste can ask for the old cursor's place
        # (the scrollbar goes away, TextArea scrolls to the cursor) before it moves the cursor
        n_lines = len(self._rows) if self._by_char else line_count_wrapped(self)
        line = min(max(location[0], 0), max(0, n_lines - 1))
        return super().location_to_offset((line, location[1]))

    def get_sections(self, line_index: int) -> list[str]:
        if not self._by_char:
            return super().get_sections(line_index)
        shown = self.document[line_index]
        cuts = [0, *self.line_offsets(line_index), len(shown)]
        return [shown[a:b] for a, b in zip(cuts, cuts[1:])]
