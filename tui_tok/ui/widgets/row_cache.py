"""``RowCache``: a Line-API widget that repaints only the rows whose content changed.

Textual repaints every row of a widget on ``refresh()``, and each row costs twice: the
widget builds its strip, then Textual's per-widget cache adds borders, padding and colour
filters to it (a row of coloured tokens is not cheap). A
keystroke usually changes one or two rows. A widget using this mixin describes each visible
row by a hashable *key* (everything its strip depends on, besides width and styles);
``refresh_changed`` compares the keys with those of the rows last drawn and marks only the
differing rows dirty, and strips are kept by key, so a row that moved (a line inserted above
it) is not built again.

Leaves out what the keys cannot see: the widget calls ``clear_rows()`` and ``refresh()``
itself when its width, styles or display options change.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from tui_tok.ui.widgets.content_box import ContentBox

MAX_CACHED_ROWS = 2_000
"""Strips kept by key (the cache is emptied when it reaches this)."""


class RowCache(ContentBox):
    """Mixin (before the widget class) for a Line-API ``ScrollView``: implement ``row_keys`` and ``build_row``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._row_strips: dict[Hashable, Strip] = {}
        self._drawn_keys: dict[int, Hashable | None] = {}
        """What each visible row (y) was last drawn from."""
        self._frame_keys: list[Hashable | None] = []

    def row_keys(self) -> list[Hashable | None]:
        """Key of each visible row, top first (None: nothing to draw there, never cached)."""
        raise NotImplementedError

    def build_row(self, row: int) -> Strip:
        """The strip of virtual row ``row`` (scroll offset included)."""
        raise NotImplementedError

    def clear_rows(self) -> None:
        """Forget every cached strip (width, styles or display options changed)."""
        self._row_strips.clear()

    def refresh_changed(self) -> None:
        """Repaint the visible rows whose key differs from what they last showed."""
        widget: Widget = self  # type: ignore[assignment]
        drawn = self._drawn_keys
        if not drawn:
            widget.refresh()
            return
        width = self.content_box.width
        changed = [y for y, key in enumerate(self.row_keys()) if y not in drawn or drawn[y] != key]
        run_start = -1
        for k, y in enumerate(changed):  # one region per run of changed rows
            if run_start < 0:
                run_start = y
            if k + 1 == len(changed) or changed[k + 1] != y + 1:
                widget.refresh(Region(0, run_start, width, y - run_start + 1))
                run_start = -1

    def refresh_rows(self, rows: Iterable[int]) -> None:
        """Repaint virtual rows ``rows`` (scroll offset included) if they are visible.

        For a change whose rows are known (a cursor that moved), without computing every key.
        """
        widget: Widget = self  # type: ignore[assignment]
        top, height = widget.scroll_offset.y, self.content_box.height
        width = self.content_box.width
        for row in set(rows):
            if top <= row < top + height:
                widget.refresh(Region(0, row - top, width, 1))

    def render_lines(self, crop: Region) -> list[Strip]:
        self._frame_keys = self.row_keys()
        return super().render_lines(crop)  # type: ignore[misc, no-any-return]

    def render_line(self, y: int) -> Strip:
        keys = self._frame_keys
        key = keys[y] if y < len(keys) else None
        self._drawn_keys[y] = key
        strips = self._row_strips
        strip = strips.get(key) if key is not None else None
        if strip is None:
            strip = self.build_row(self.scroll_offset.y + y)  # type: ignore[attr-defined]
            if key is not None:
                if len(strips) >= MAX_CACHED_ROWS:
                    strips.clear()
                strips[key] = strip
        return strip
