"""``IdStrip``: the token ids (or pieces) of the text, wrapped, coloured like their spans.

Line API again: a 300k-token text builds only the rows on screen; the wrap points are
computed once per width, and after an edit only the rows it moved are flowed again
(``reflow_rows``). Rows are repainted only when their labels, colours or cursor
changed (``RowCache``): typing at the end of a text redraws the last row only.

Labels are measured in cells (a piece ``日本`` takes four, not two), so a row never runs past
the strip's width and no label is cut at its right edge. A label wider than the strip (a long
piece in a narrow strip) is folded over rows of its own (``fold_label``), at unit boundaries:
``\xe6`` or ``⟨200D⟩`` is never cut in two.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from dataclasses import dataclass

import numpy as np
from rich.cells import cell_len
from rich.segment import Segment as RichSegment
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui_tok.explore.flow import flow_rows, reflow_rows
from tui_tok.explore.layout import TokenLayout
from tui_tok.ui.widgets.palette import N_COLOURS, TOKEN_CLASSES, CachedStyles
from tui_tok.ui.widgets.quiet_size import set_virtual_size
from tui_tok.ui.widgets.row_cache import RowCache

Flow = tuple[np.ndarray, np.ndarray, int]
"""Label widths, first label of each row (plus the count at the end), and the width they wrap at."""
FlowHint = tuple[tuple[int, ...], Flow | None, np.ndarray, bool]
"""``IdStrip.flow_hint``: widths to flow at, the last flow, the ids it is of, whether shown as ids."""


def label_widths(ids: np.ndarray, pieces: Mapping[int, str] | None) -> np.ndarray:
    """Cells per label plus its separating space, without building the labels."""
    if pieces is None:  # at most 12 cells: one byte each (3M labels: 3 MB, not 24)
        # digits by comparison, not log10: no float64 temporaries 8x the result's size
        widths = np.full(len(ids), 2, dtype=np.uint8)
        top = int(ids.max()) if len(ids) else 0
        power = 10
        while power <= top:
            widths += ids >= power
            power *= 10
        return widths
    unique, inverse = np.unique(ids, return_inverse=True)
    lengths = np.array([cell_len(pieces[int(u)]) + 1 for u in unique], dtype=np.int64)
    return lengths[inverse.reshape(-1)] if len(unique) else np.zeros(0, dtype=np.int64)


_UNIT = re.compile(r"⟨[0-9A-F]{4,6}⟩|\\x[0-9A-F]{2}|.", re.DOTALL)
"""What a label is folded between: a drawn code (``display.invisible_form``) or one character."""


def fold_label(label: str, width: int) -> list[str]:
    """``label`` cut into rows of at most ``width`` cells, between units (``_UNIT``).

    >>> fold_label("ab⟨200D⟩cd", 4)
    ['ab', '⟨200D⟩', 'cd']
    """
    width = max(1, width)
    parts: list[str] = []
    row: list[str] = []
    used = 0
    for unit in _UNIT.findall(label):
        cells = cell_len(unit)
        if row and used + cells > width:
            parts.append("".join(row))
            row, used = [], 0
        row.append(unit)
        used += cells
    parts.append("".join(row))
    return parts


def fold_rows(starts: np.ndarray, widths: np.ndarray, rows_of: Mapping[int, int]) -> np.ndarray:
    """Row starts with each label of ``rows_of`` (label index -> rows it is folded over, each
    alone on its rows) repeated once per extra row: row ``r`` then holds labels
    ``starts[r] .. starts[r + 1]``, an empty range being a fold of label ``starts[r]`` that is
    not its last.

    >>> fold_rows(np.array([0, 2, 3, 4]), np.array([2, 2, 9, 2]), {2: 3}).tolist()
    [0, 2, 2, 2, 3, 4]
    """
    if not rows_of:
        return starts
    items = np.array(sorted(rows_of), dtype=np.int64)
    extra = np.array([rows_of[int(i)] - 1 for i in items], dtype=np.int64)
    where = np.searchsorted(starts, items)
    return np.insert(starts, np.repeat(where, extra), np.repeat(items, extra))


def spliced_widths(layout: TokenLayout, pieces: Mapping[int, str] | None, hint: FlowHint) -> np.ndarray | None:
    """``label_widths`` of ``layout``'s labels from those of the labels shown, when ``layout`` was
    spliced from theirs (``TokenLayout.edit``): only the new tokens' labels are measured (a key
    in a 10 MB text: a few, not 3M). None when the strip shows other labels."""
    edit, (_, last, shown, shown_ids) = layout.edit, hint
    base = edit.base() if edit is not None else None
    if edit is None or base is None or last is None or base.ids is not shown or shown_ids != (pieces is None):
        return None
    old_widths = last[0]
    if len(old_widths) != len(base.ids):
        return None
    n_mid = layout.n_tokens - edit.first - (len(base.ids) - edit.stop)
    mid = label_widths(layout.ids[edit.first : edit.first + n_mid], pieces)
    return np.concatenate((old_widths[: edit.first], mid.astype(old_widths.dtype, copy=False), old_widths[edit.stop :]))


def strip_flow(
    ids: np.ndarray, pieces: Mapping[int, str] | None, width: int, last: Flow | None, widths: np.ndarray | None = None
) -> Flow:
    """The labels of ``ids`` wrapped at ``width`` (reflowed from ``last`` when it has that width).
    Plain numpy: a worker computes it for a long text (millions of labels). ``widths``: their
    ``label_widths`` when known (``spliced_widths``)."""
    widths = label_widths(ids, pieces) if widths is None else widths
    if last is not None and last[2] == width:
        return widths, reflow_rows(last[1], last[0], widths, width=width), width
    return widths, flow_rows(widths, width=width), width


class IdStrip(RowCache, CachedStyles, ScrollView):
    """Wrapped labels (ids or pieces), one per token."""

    COMPONENT_CLASSES = TOKEN_CLASSES  # type: ignore[assignment]  # Textual annotates set[str] but only reads it

    cursor: reactive[int] = reactive(-1, repaint=False)

    @dataclass
    class Clicked(Message):
        """Label ``index`` was clicked (the view selects that token)."""

        index: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ids = np.zeros(0, dtype=np.int64)
        self.kinds = np.zeros(0, dtype=np.uint8)
        self.phases = np.zeros(0, dtype=np.int64)
        self.pieces: Mapping[int, str] | None = None
        self._row_starts: np.ndarray | None = None
        self._width = -1
        self._flowed: tuple[np.ndarray, np.ndarray, int] | None = None
        self._folds: dict[int, list[str]] = {}
        """Labels wider than the strip by id, folded into rows (``fold_label``)."""
        self._spare: dict[int, Flow] = {}
        """Flows of the current labels made off the UI thread, by width."""
        """The last flow: label widths, row starts and width (an edit reflows only what it moved)."""

    def show(
        self,
        ids: np.ndarray,
        kinds: np.ndarray,
        *,
        phases: np.ndarray | None = None,
        pieces: Mapping[int, str] | None = None,
        flowed: tuple[Flow, ...] = (),
    ) -> None:
        """Label each token with its id, or with ``pieces[id]`` when given; coloured by ``phases``
        (``TokenLayout.phases``, so each label matches its span; default: the token index).
        ``flowed``: ``strip_flow`` of these labels at some widths, computed off the UI thread (one
        whose width is the strip's is used; a scrollbar coming or going picks another)."""
        self.ids = ids
        self.kinds = kinds
        self.phases = phases if phases is not None else np.arange(len(ids), dtype=np.int64)
        old_width = self._width
        self.pieces = pieces
        self._row_starts = None
        self._spare = {flow[2]: flow for flow in flowed}
        self._update_size()
        if old_width == max(1, self.content_box.width):
            self.refresh_changed()
        else:
            self.refresh()

    def flow_hint(self) -> FlowHint:
        """The widths labels may wrap at (now, and beside the vertical scrollbar a long text
        brings), the last flow, and the ids it is of (with whether they are shown as ids): what
        ``strip_flow`` and ``spliced_widths`` need, read on the UI thread."""
        width = max(1, self.content_box.width)
        shown = (self._flowed, self.ids, self.pieces is None)
        if self.show_vertical_scrollbar:
            return ((width,), *shown)
        return ((width, max(1, width - self.styles.scrollbar_size_vertical)), *shown)

    @property
    def row_starts(self) -> np.ndarray:
        width = max(1, self.content_box.width)
        if self._row_starts is None or self._width != width:
            self._width = width
            spare = self._spare.get(width)
            self._flowed = spare if spare is not None else strip_flow(self.ids, self.pieces, width, self._flowed)
            self._row_starts = self._fold(self._flowed, width)
        return self._row_starts

    def _fold(self, flow: Flow, width: int) -> np.ndarray:
        """The flowed rows with the labels wider than the strip folded (``fold_rows``)."""
        self._folds = {}
        widths, starts, _ = flow
        pieces = self.pieces
        if pieces is None or not len(widths) or int(widths.max()) - 1 <= width:
            return starts
        long = np.flatnonzero(widths - 1 > width)
        rows_of: dict[int, int] = {}
        for i in long.tolist():
            token_id = int(self.ids[i])
            parts = self._folds.get(token_id)
            if parts is None:
                parts = self._folds[token_id] = fold_label(pieces[token_id], width)
            rows_of[i] = len(parts)
        return fold_rows(starts, widths, rows_of)

    def _row_labels(self, row: int, first: int, stop: int) -> list[str] | None:
        """The part of a folded label row ``row`` shows (None: the row holds whole labels)."""
        if not self._folds or stop - first > 1 or first >= len(self.ids):
            return None
        parts = self._folds.get(int(self.ids[first]))
        if parts is None:
            return None
        fold = row - int(np.searchsorted(self.row_starts, first, side="left"))
        return [parts[min(fold, len(parts) - 1)]]

    def label(self, i: int) -> str:
        token_id = int(self.ids[i])
        return self.pieces[token_id] if self.pieces is not None else str(token_id)

    def index_at(self, row: int, x: int) -> int:
        """The label drawn at column ``x`` of row ``row`` (its trailing space included), -1 for none."""
        starts = self.row_starts
        if not 0 <= row < len(starts) - 1 or x < 0 or self._flowed is None:
            return -1
        first, stop = int(starts[row]), int(starts[row + 1])
        ends = np.cumsum(self._flowed[0][first:stop], dtype=np.int64)
        i = int(np.searchsorted(ends, x, side="right"))
        return first + i if i < stop - first else -1

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            index = self.index_at(self.scroll_offset.y + offset.y, offset.x)
            if index >= 0:
                self.post_message(self.Clicked(index))

    def _update_size(self) -> None:
        set_virtual_size(self, Size(self.content_box.width, len(self.row_starts) - 1))

    def on_resize(self, event: events.Resize) -> None:
        self._row_starts = None
        self.clear_rows()
        self._update_size()

    def notify_style_update(self) -> None:
        self.clear_rows()
        super().notify_style_update()

    def watch_cursor(self, old: int, new: int) -> None:
        starts = self.row_starts
        # only the rows of the label it leaves and the one it enters look different
        self.refresh_rows(
            row
            for i in (old, new)
            if 0 <= i < len(self.ids)
            # (every row of a folded label)
            for row in range(
                min(int(np.searchsorted(starts, i, side="left")), int(np.searchsorted(starts, i, side="right")) - 1),
                int(np.searchsorted(starts, i, side="right")),
            )
        )
        if 0 <= self.cursor < len(self.ids):
            row = int(np.searchsorted(self.row_starts, self.cursor, side="right")) - 1
            top, height = self.scroll_offset.y, self.content_box.height
            if row < top or row >= top + height:
                self.scroll_to(y=max(0, row - height // 2), animate=False)

    def row_keys(self) -> list[Hashable | None]:
        """Per visible row: its labels (or ids), their colours and where the cursor is on it."""
        region = self.content_box
        top, height = self.scroll_offset.y, region.height
        starts = self.row_starts
        keys: list[Hashable | None] = [None] * height
        n_rows = len(starts) - 1
        if top >= n_rows:
            return keys
        bounds = starts[top : min(n_rows, top + height) + 1].tolist()
        lo, hi = bounds[0], bounds[-1]
        ids = self.ids[lo:hi].tolist()
        looks = ((self.phases[lo:hi] % N_COLOURS) + N_COLOURS * self.kinds[lo:hi]).tolist()
        pieces = self.pieces
        labels = ids if pieces is None else [pieces[i] for i in ids]
        cursor = self.cursor
        for y, (first, stop) in enumerate(zip(bounds, bounds[1:])):
            a, b = first - lo, stop - lo
            folded = self._row_labels(top + y, first, stop)
            if folded is not None:  # a fold of one long label
                hit = first == cursor
                look = int(self.phases[first]) % N_COLOURS + N_COLOURS * int(self.kinds[first])
                keys[y] = (tuple(folded), (look,), 0 if hit else -1, top + y)
                continue
            keys[y] = (tuple(labels[a:b]), tuple(looks[a:b]), cursor - first if first <= cursor < stop else -1)
        return keys

    def build_row(self, row: int) -> Strip:
        width = self.content_box.width
        starts = self.row_starts
        styles = self.token_styles
        if row >= len(starts) - 1:
            return Strip.blank(width, styles.base)
        out: list[RichSegment] = []
        first, stop = int(starts[row]), int(starts[row + 1])
        folded = self._row_labels(row, first, stop)
        if folded is not None:
            style = styles.of(int(self.phases[first]), int(self.kinds[first]), cursor=first == self.cursor)
            return Strip([RichSegment(folded[0], style)]).extend_cell_length(width, styles.base).crop(0, width)
        ids = self.ids[first:stop].tolist()
        kinds = self.kinds[first:stop].tolist()
        phases = self.phases[first:stop].tolist()
        pieces = self.pieces
        cursor = self.cursor
        space = RichSegment(" ", styles.base)
        for i, token_id, kind, phase in zip(range(first, stop), ids, kinds, phases):
            label = pieces[token_id] if pieces is not None else str(token_id)
            out.append(RichSegment(label, styles.of(phase, kind, cursor=i == cursor)))
            out.append(space)
        return Strip(out).extend_cell_length(width, styles.base).crop(0, width)
