"""``TokenView``: the text with each token's span coloured, drawn row by row (Line API).

Only visible rows are built, from a ``TokenLayout`` computed off the UI thread, so a 1 MB
text scrolls as fast as a short one. A cursor moves over tokens (left/right, click) and
posts ``TokenView.Selected``.

With chunk cuts shown (``show_cuts``: the tokenize view's ``^R``), every other pre-tokenizer
chunk of a line is underlined (``explore.chunk_marks``); the cuts are part of each row's key,
so they cost nothing while they are off.

A keystroke usually changes one line: a new layout, or a cursor that moved, repaints only
the visible rows whose content changed (``RowCache`` with ``RowKey``: the row's text, its
tokens' spans and colours, the cursor). Colours follow ``TokenLayout.phases``, so an edit
does not recolour the lines below it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from rich.segment import Segment as RichSegment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui_tok.explore.chunk_marks import ChunkMarks, carry_marks, row_cuts
from tui_tok.explore.display import INVISIBLE, invisible_form, visible_text
from tui_tok.explore.layout import (
    Rows,
    Segment,
    TokenLayout,
    layout_tokens,
    row_of_char,
    row_segments,
    row_span,
    row_spans,
    token_at,
    wrap_rows,
)
from tui_tok.explore.layout_splice import splice_rows
from tui_tok.ui.widgets.paint_clock import PaintClock
from tui_tok.ui.widgets.palette import N_COLOURS, TOKEN_CLASSES, CachedStyles
from tui_tok.ui.widgets.quiet_size import set_virtual_size
from tui_tok.ui.widgets.row_cache import RowCache


class RowKey(NamedTuple):
    """Everything a drawn row depends on besides width, styles and whitespace display."""

    text: str
    starts: tuple[int, ...]
    """Starts of the tokens on the row, relative to the row's first character."""
    ends: tuple[int, ...]
    looks: tuple[int, ...]
    """Colour of each token: phase modulo ``N_COLOURS`` plus ``N_COLOURS`` times its kind code."""
    cursor: int
    """The cursor's token, relative to the row's first token (-1: not on this row)."""
    cuts: tuple[int, tuple[int, ...]] | None = None
    """Chunk cuts shown: whether the row starts underlined, and where (relative) that flips."""
    hidden: tuple[int, int] | None = None
    """The selected token covers no cell of its own (``TokenView.hidden_cursor``): the characters
    (relative) drawn in its style instead."""


class TokenView(PaintClock, RowCache, CachedStyles, ScrollView, can_focus=True):
    """Coloured token spans over the text."""

    COMPONENT_CLASSES = TOKEN_CLASSES | {"tok--cut"}  # type: ignore[assignment]  # Textual annotates set[str] but only reads it
    BINDINGS = [
        Binding("left", "move(-1)", "Prev token", show=False),
        Binding("right", "move(1)", "Next token", show=False),
        Binding("home", "move_to(0)", "First token", show=False),
        Binding("end", "move_to(-1)", "Last token", show=False),
        Binding("enter,v", "open", "In vocabulary"),
    ]

    show_whitespace: reactive[bool] = reactive(True)
    cursor: reactive[int] = reactive(-1, repaint=False)
    """Index of the selected token (-1: none). Repaints only the rows it leaves and enters."""

    @dataclass
    class Selected(Message):
        """The cursor moved to token ``index`` of ``layout``."""

        view: TokenView
        index: int

        @property
        def control(self) -> TokenView:
            return self.view

    @dataclass
    class OpenRequested(Message):
        """The user asked to see token ``token_id`` in the vocabulary."""

        view: TokenView
        token_id: int

        @property
        def control(self) -> TokenView:
            return self.view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.token_layout = layout_tokens("", [])
        self._rows: Rows | None = None
        self.cut_marks: ChunkMarks | None = None
        """The chunk starts drawn (None: cuts off), carried onto each new layout's text."""
        self._cut_style: Style | None = None

    def show(self, layout: TokenLayout, rows: Rows | None = None) -> None:
        """Draw ``layout``; the cursor stays on the same token index when it still exists.
        ``rows``: its ``wrap_rows``, made off the UI thread (used at the width it has)."""
        old_rows, old_layout = self._rows, self.token_layout
        self.token_layout = layout
        if self.cut_marks is not None and self.cut_marks.text is not layout.text:
            self.cut_marks = carry_marks(self.cut_marks, layout.text)
        edit = layout.edit
        self._rows = rows if rows is not None and self._fits(rows) else None
        if (
            old_rows is not None
            and edit is not None
            and edit.base() is old_layout
            and old_rows.width == self.wrap_width
        ):
            # an edit of the layout shown: only the lines around it are wrapped again
            self._rows = splice_rows(old_rows, old_layout, layout, char_a=edit.char_a, char_b_old=edit.char_b_old)
        self._update_size()
        if self.cursor >= layout.n_tokens:
            self.cursor = layout.n_tokens - 1
        if old_rows is not None and old_rows.width == self.rows.width:
            self.refresh_changed()
        else:
            self.refresh()

    def show_cuts(self, marks: ChunkMarks | None) -> None:
        """Underline alternate chunks from ``marks`` (carried onto the shown text when it has
        changed since they were computed); None: draw no cuts."""
        if marks is not None and marks.text is not self.token_layout.text:
            marks = carry_marks(marks, self.token_layout.text)
        self.cut_marks = marks
        self.refresh_changed()

    @property
    def wrap_width(self) -> int:
        """The width rows are wrapped at."""
        return max(2, self.content_box.width)

    @property
    def rows(self) -> Rows:
        width = self.wrap_width
        if self._rows is None or not self._fits(self._rows):
            self._rows = wrap_rows(self.token_layout, width=width)
        return self._rows

    def _fits(self, rows: Rows) -> bool:
        """Rows of the width drawn at, or of the width beside the vertical scrollbar that their
        number brings (a long text's rows are wrapped so, off the UI thread: ``tokenize_draw``)."""
        width = self.wrap_width
        if rows.width == width:
            return True
        return (
            not self.show_vertical_scrollbar and rows.width == width - self.styles.scrollbar_size_vertical
            and rows.n_rows > self.content_box.height
        )  # fmt: skip

    def _update_size(self) -> None:
        set_virtual_size(self, Size(self.content_box.width, self.rows.n_rows))

    def on_resize(self, event: events.Resize) -> None:
        self._rows = None
        self.clear_rows()
        self._update_size()

    def notify_style_update(self) -> None:
        self.clear_rows()
        self._cut_style = None
        super().notify_style_update()

    def watch_show_whitespace(self) -> None:
        self.clear_rows()
        self.refresh()

    def watch_cursor(self, old: int, new: int) -> None:
        # only the rows of the token it leaves and the one it enters look different
        self.refresh_rows(self._token_rows(old) + self._token_rows(new))
        if 0 <= new < self.token_layout.n_tokens:
            char = int(self.token_layout.starts[new])
            self.scroll_to_region_row(row_of_char(self.token_layout, self.rows, char))
            self.post_message(self.Selected(self, new))

    def _token_rows(self, index: int) -> list[int]:
        """The rows token ``index`` is drawn on (none for an index out of range)."""
        lay = self.token_layout
        if not 0 <= index < lay.n_tokens:
            return []
        start, end = int(lay.starts[index]), int(lay.ends[index])
        first = row_of_char(lay, self.rows, start)
        return list(range(first, max(first, row_of_char(lay, self.rows, max(start, end - 1))) + 1))

    def scroll_to_region_row(self, row: int) -> None:
        top = self.scroll_offset.y
        height = self.content_box.height
        if row < top or row >= top + height:
            self.scroll_to(y=max(0, row - height // 2), animate=False)

    def row_keys(self) -> list[RowKey | None]:  # type: ignore[override]
        """What each visible row shows, as hashable values (None: past the end of the text)."""
        region = self.content_box
        top, height = self.scroll_offset.y, region.height
        rows = self.rows
        lay = self.token_layout
        starts, ends = row_spans(lay, rows, top, height)
        keys: list[RowKey | None] = [None] * height
        if not len(starts):
            return keys
        # needles of the columns' type (int32 for most texts): else numpy converts 3M-long columns per call
        firsts = np.searchsorted(lay.ends, starts.astype(lay.ends.dtype), side="right")
        stops = np.maximum(firsts, np.searchsorted(lay.starts, ends.astype(lay.starts.dtype), side="left"))
        lo, hi = int(firsts[0]), int(stops.max())
        # one conversion to Python values for all visible tokens; per row only slicing
        t_starts = lay.starts[lo:hi].tolist()
        t_ends = lay.ends[lo:hi].tolist()
        t_looks = ((lay.phases[lo:hi] % N_COLOURS) + N_COLOURS * lay.kinds[lo:hi]).tolist()
        text, cursor = lay.text, self.cursor
        hidden = self.hidden_cursor()
        marks = self.cut_marks
        cuts = row_cuts(marks.starts, lay.line_starts, starts, ends) if marks is not None else None
        for y, (start, end, first, stop) in enumerate(
            zip(starts.tolist(), ends.tolist(), firsts.tolist(), stops.tolist())
        ):
            a, b = first - lo, stop - lo
            keys[y] = RowKey(
                text[start:end],
                tuple([v - start for v in t_starts[a:b]]),
                tuple([v - start for v in t_ends[a:b]]),
                tuple(t_looks[a:b]),
                cursor - first if first <= cursor < stop else -1,
                None if cuts is None else cuts[y],
                _overlap(hidden, start, end, len(text)),
            )
        return keys

    def hidden_cursor(self) -> tuple[int, int] | None:
        """Characters ``[a, b)`` to draw in the selected token's style when it covers no cell of
        its own: a BOS/EOS (no text: the character where it sits, or one cell past the end) or a
        byte token inside a character an earlier token already draws (id 233 inside 👋). None
        when the selected token is drawn anyway."""
        lay, c = self.token_layout, self.cursor
        if not 0 <= c < lay.n_tokens:
            return None
        start, end = int(lay.starts[c]), int(lay.ends[c])
        if end <= start:
            return start, start + 1
        if c > 0 and int(lay.ends[c - 1]) >= end and int(lay.starts[c - 1]) <= start:
            return start, end
        return None

    def build_row(self, row: int) -> Strip:
        width = self.content_box.width
        rows = self.rows
        styles = self.token_styles
        if row >= rows.n_rows:
            return Strip.blank(width, styles.base)
        lay = self.token_layout
        segments = row_segments(lay, rows, row)
        if not segments:
            return Strip.blank(width, styles.base)
        # one translate per row (it maps character to character, so spans keep their offsets)
        first = segments[0].start
        raw = lay.text[first : segments[-1].end]
        shown = visible_text(raw, show_whitespace=self.show_whitespace)
        # characters that take no cell are drawn as a code, per segment (the layout counted its cells)
        coded = not raw.isascii() and INVISIBLE.search(raw) is not None
        if self.cut_marks is not None:
            return self._build_cut_row(segments, shown, coded, width)
        cursor = self.cursor
        kinds = lay.kinds
        phases = lay.phases
        hidden = _overlap(self.hidden_cursor(), first, segments[-1].end, len(lay.text))
        if hidden is not None:
            segments = _split_at(segments, first + hidden[0], first + hidden[1])
        out: list[RichSegment] = []
        for seg in segments:
            token = seg.token
            if hidden is not None and first + hidden[0] <= seg.start < first + hidden[1]:
                token = cursor  # drawn in the selected token's style (hidden_cursor)
            kind, phase = (int(kinds[token]), int(phases[token])) if token >= 0 else (0, -1)
            part = shown[seg.start - first : seg.end - first]
            if coded:
                part = INVISIBLE.sub(lambda m: invisible_form(m.group()), part)
            out.append(RichSegment(part, styles.of(phase, kind, cursor=token == cursor)))
        if hidden is not None and first + hidden[0] >= segments[-1].end:  # an EOS past the text: one cell
            out.append(RichSegment(" ", styles.of(int(phases[cursor]), int(kinds[cursor]), cursor=True)))
        return Strip(out).extend_cell_length(width, styles.base).crop(0, width)

    def _build_cut_row(self, segments: list[Segment], shown: str, coded: bool, width: int) -> Strip:
        """``build_row`` with chunk cuts: each token's run split where a chunk starts, every other
        chunk of the line underlined (``tok--cut``, added to the token's own style)."""
        assert self.cut_marks is not None
        lay, styles = self.token_layout, self.token_styles
        first = segments[0].start
        edges = np.array([first, segments[-1].end], dtype=np.int64)
        ((underlined, rel),) = row_cuts(self.cut_marks.starts, lay.line_starts, edges[:1], edges[1:])
        flips = [first + c for c in rel]  # characters where the underline flips
        if self._cut_style is None:
            self._cut_style = self.get_component_rich_style("tok--cut", partial=True)
        cut_style = self._cut_style
        k = 0
        out: list[RichSegment] = []
        for seg in segments:
            token = seg.token
            kind, phase = (int(lay.kinds[token]), int(lay.phases[token])) if token >= 0 else (0, -1)
            style = styles.of(phase, kind, cursor=token == self.cursor)
            at = seg.start
            while True:  # one run per stretch between chunk cuts
                stop = flips[k] if k < len(flips) and flips[k] < seg.end else seg.end
                if stop > at:
                    part = shown[at - first : stop - first]
                    if coded:
                        part = INVISIBLE.sub(lambda m: invisible_form(m.group()), part)
                    out.append(RichSegment(part, style + cut_style if underlined else style))
                if stop == seg.end:
                    break
                underlined ^= 1
                k += 1
                at = stop
        return Strip(out).extend_cell_length(width, styles.base).crop(0, width)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = self.scroll_offset.y + offset.y
        if row >= self.rows.n_rows:
            return
        start, end = row_span(self.token_layout, self.rows, row)
        # the character whose cells hold column x (the cells count wide and coded characters)
        cells = self.token_layout.cells
        char = min(max(cells.char_at(cells.before(start) + offset.x + 1) - 1, start), end)
        index = token_at(self.token_layout, min(char, max(end - 1, start)))
        if index >= 0:
            self.cursor = index

    def action_move(self, step: int) -> None:
        n = self.token_layout.n_tokens
        if n:
            self.cursor = min(max(0, self.cursor + step), n - 1)

    def action_move_to(self, index: int) -> None:
        n = self.token_layout.n_tokens
        if n:
            self.cursor = index % n

    def action_open(self) -> None:
        if 0 <= self.cursor < self.token_layout.n_tokens:
            self.post_message(self.OpenRequested(self, int(self.token_layout.ids[self.cursor])))

    def select_char(self, char: int) -> None:
        """Put the cursor on the token covering character ``char`` (from the editor's cursor)."""
        index = token_at(self.token_layout, char)
        if index < 0 and char > 0:
            index = token_at(self.token_layout, char - 1)
        if index >= 0 and index != self.cursor:
            self.cursor = index


def _overlap(hidden: tuple[int, int] | None, start: int, end: int, n_chars: int) -> tuple[int, int] | None:
    """``hidden`` relative to a row showing characters ``[start, end)`` (None: not on it); an
    empty range past the text's end belongs to the row that ends the text."""
    if hidden is None:
        return None
    a, b = hidden
    if a < end and b > start:
        return max(a, start) - start, min(b, end) - start
    if a == end == n_chars:
        return end - start, end - start + 1
    return None


def _split_at(segments: list[Segment], a: int, b: int) -> list[Segment]:
    """``segments`` with runs cut at characters ``a`` and ``b``."""
    out: list[Segment] = []
    for seg in segments:
        cuts = [x for x in (a, b) if seg.start < x < seg.end]
        edges = [seg.start, *cuts, seg.end]
        out.extend(Segment(x, y, seg.token) for x, y in zip(edges, edges[1:]))
    return out
