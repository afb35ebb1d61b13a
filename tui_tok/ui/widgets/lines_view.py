"""``LinesView``: a read-only list of lines produced on demand (an array of 262k items, a template).

Lines come from a callable, so a huge array is never formatted as a whole. A line is a plain
string (drawn in the view's style) or a rich ``Text`` (its styles over the view's: a numbered
template with the line of an error marked).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment as RichSegment
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui_tok.explore.visible import visible


class LinesView(ScrollView, can_focus=True):
    """``count`` lines, line ``i`` being ``line_of(i)``."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.count = 0
        self.line_of: Callable[[int], str | Text] = lambda i: ""
        self._width = 0
        self._want_top: int | None = None
        """A line asked to be at the top before the view knew its size (applied on resize)."""

    def show(self, count: int, line_of: Callable[[int], str | Text], *, width: int = 0) -> None:
        self.count = count
        self.line_of = line_of
        self._width = width
        self.virtual_size = Size(max(width, self.scrollable_content_region.width), count)
        self._want_top = None
        self.scroll_to(0, 0, animate=False, immediate=True)  # not after a scroll_line_to_top that follows
        self.refresh()

    def scroll_line_to_top(self, line: int) -> None:
        """Put ``line`` (0-based) at the top, now and again once the view has its size: a view
        on a screen that is just resuming has none yet, and the scroll would be clamped to 0."""
        self._want_top = line
        self.scroll_to(0, line, animate=False, immediate=True, force=True)

    def on_resize(self) -> None:
        if self._want_top is not None:
            self.scroll_to(0, self._want_top, animate=False, immediate=True, force=True)

    def show_lines(self, lines: list[str] | list[Text]) -> None:
        self.show(len(lines), lines.__getitem__, width=max((len(s) for s in lines[:5000]), default=0))

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        style = self.rich_style
        if row >= self.count:
            return Strip.blank(width, style)
        line = self.line_of(row)
        if isinstance(line, Text):  # lines are the file's (a template, a string value): controls drawn, never sent
            segments = [RichSegment(visible(seg.text), seg.style)
                        for seg in line.render(self.app.console, end="") if seg.text != "\n"]  # fmt: skip
            strip = Strip(list(RichSegment.apply_style(segments, style)))
        else:
            strip = Strip([RichSegment(visible(line), style)])
        return strip.extend_cell_length(scroll_x + width, style).crop(scroll_x, scroll_x + width)
