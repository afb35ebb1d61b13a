"""``VocabTable``: one row per token over a whole vocabulary (262k rows), drawing only what is visible.

Textual's ``DataTable`` builds every row; this Line-API widget keeps just the array of ids
to show and formats a row when it scrolls into view. A byte-level vocabulary gets a ``text``
column: what each piece decodes to (its pieces spell bytes: ``æĹ¥æľ¬`` is ``日本``). The piece column is padded and cut by
terminal cells, not characters: ``日本の`` takes six cells, and counted as three it pushed
the bytes column off the row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rich.cells import cell_len, set_cell_size
from rich.segment import Segment as RichSegment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui_tok.explore.vocab_index import BYTE_LEVEL_MODELS, VocabIndex, type_name
from tui_tok.ui.widgets.paint_clock import PaintClock
from tui_tok.ui.widgets.quiet_size import set_virtual_size

ID_W, TYPE_W, VALUE_W, BYTES_W = 8, 13, 12, 6

_TYPE_CLASS = {3: "special", 4: "special", 6: "byte", 0: "dim", 5: "dim"}
"""Stored token type -> row style (control and user-defined, byte, undefined and unused)."""


def header_text(*, value_label: str, piece_width: int, text_width: int = 0) -> str:
    """The column titles, aligned like the rows (``text``: what a byte-level piece decodes to)."""
    text = f"{'text':<{text_width}}  " if text_width else ""
    return (
        f"{'id':>{ID_W}}  {'piece':<{piece_width}}  {text}{'type':<{TYPE_W}}  {value_label:>{VALUE_W}}  "
        f"{'bytes':>{BYTES_W}}"
    )


def fit_cells(text: str, width: int) -> str:
    """``text`` padded or cut to exactly ``width`` terminal cells, a cut one ending in ``…``.

    >>> fit_cells("日本の", 8) + "|", fit_cells("日本の", 5) + "|", fit_cells("ab", 3) + "|"
    ('日本の  |', '日本…|', 'ab |')
    """
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(set_cell_size(text, width - 1) + "…", width)


class VocabTable(PaintClock, ScrollView, can_focus=True):
    """Rows ``ids`` of ``index``; a highlighted row under the cursor."""

    COMPONENT_CLASSES = {"vocab-table--cursor", "vocab-table--special", "vocab-table--byte", "vocab-table--dim"}
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "move_to(0)", "Top", show=False),
        Binding("end", "move_to(-1)", "Bottom", show=False),
    ]

    cursor: reactive[int] = reactive(0)
    """Row under the cursor (an index into ``ids``)."""

    @dataclass
    class Highlighted(Message):
        """Token ``token_id`` is under the cursor."""

        table: VocabTable
        token_id: int

        @property
        def control(self) -> VocabTable:
            return self.table

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index: VocabIndex | None = None
        self.ids = np.zeros(0, dtype=np.int64)

    def show(self, index: VocabIndex, ids: np.ndarray, *, cursor_id: int | None = None) -> None:
        """Show rows ``ids``; keep the cursor on ``cursor_id`` when it is among them."""
        self.index = index
        self.ids = ids
        set_virtual_size(self, Size(self.scrollable_content_region.width, len(ids)))  # no layout pass
        row = 0
        if cursor_id is not None and len(ids):
            pos = int(np.searchsorted(ids, cursor_id))
            row = pos if pos < len(ids) and ids[pos] == cursor_id else 0
        self.cursor = row
        self.mutate_reactive(VocabTable.cursor)
        self.refresh()

    @property
    def value_label(self) -> str:
        if self.index is not None and self.index.merge_ranks is not None:
            return "merge rank"
        return "score"

    def _free_width(self) -> int:
        # from the outer width, so the columns do not move when the scrollbar comes and goes
        return max(8, self.size.width - 2 - (ID_W + TYPE_W + VALUE_W + BYTES_W + 8))

    @property
    def text_width(self) -> int:
        """Width of the decoded-text column: half the piece's room in a byte-level vocabulary
        (``æĹ¥æľ¬`` reads ``日本``), 0 (no column) otherwise."""
        if self.index is None or self.index.model not in BYTE_LEVEL_MODELS:
            return 0
        return max(6, (self._free_width() - 2) // 2)

    @property
    def piece_width(self) -> int:
        text = self.text_width
        return max(6, self._free_width() - (text + 2 if text else 0))

    @dataclass
    class Resized(Message):
        """The table's width changed: the header's piece column follows ``piece_width``."""

        table: VocabTable

        @property
        def control(self) -> VocabTable:
            return self.table

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.ids))
        self.post_message(self.Resized(self))

    def watch_cursor(self, row: int) -> None:
        self.refresh()
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if height and (row < top or row >= top + height):
            self.scroll_to(y=max(0, row - height // 3), animate=False)
        if 0 <= row < len(self.ids):
            self.post_message(self.Highlighted(self, int(self.ids[row])))

    def action_move(self, step: int) -> None:
        if len(self.ids):
            self.cursor = min(max(0, self.cursor + step), len(self.ids) - 1)

    def action_page(self, step: int) -> None:
        self.action_move(step * max(1, self.scrollable_content_region.height - 1))

    def action_move_to(self, row: int) -> None:
        if len(self.ids):
            self.cursor = row % len(self.ids)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            row = self.scroll_offset.y + offset.y
            if row < len(self.ids):
                self.cursor = row

    _style_cache: dict[str, Style] | None = None

    def _styles(self) -> dict[str, Style]:
        # DOM style lookups cost more than a row: keep them until the styles change
        if self._style_cache is None:
            base = self.rich_style
            self._style_cache = {"base": base}
            for name in ("special", "byte", "dim", "cursor"):
                extra = self.get_component_rich_style(f"vocab-table--{name}", partial=name == "cursor")
                self._style_cache[name] = extra if name == "cursor" else base + extra
        return self._style_cache

    def notify_style_update(self) -> None:
        self._style_cache = None
        super().notify_style_update()

    def row_text(self, token_id: int) -> str:
        index = self.index
        assert index is not None
        if index.merge_ranks is not None:
            rank = int(index.merge_ranks[token_id])
            value = str(rank) if rank >= 0 else "-"
        elif index.scores is not None:
            value = f"{float(index.scores[token_id]):.6g}"
        else:
            value = "-"
        text_width = self.text_width
        text = f"{fit_cells(index.decoded_text(token_id), text_width)}  " if text_width else ""
        return (
            f"{token_id:>{ID_W}}  {fit_cells(index.display[token_id], self.piece_width)}  {text}"
            f"{type_name(int(index.types[token_id])):<{TYPE_W}}  "
            f"{value:>{VALUE_W}}  {int(index.byte_lengths[token_id]):>{BYTES_W}}"
        )

    def render_line(self, y: int) -> Strip:
        row = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        styles = self._styles()
        if self.index is None or row >= len(self.ids):
            return Strip.blank(width, styles["base"])
        token_id = int(self.ids[row])
        ttype = int(self.index.types[token_id])
        style: Style = styles.get(_TYPE_CLASS.get(ttype, "base"), styles["base"])
        if row == self.cursor:
            style = style + styles["cursor"]
        strip = Strip([RichSegment(self.row_text(token_id), style)])
        return strip.extend_cell_length(width, style).crop(0, width)
