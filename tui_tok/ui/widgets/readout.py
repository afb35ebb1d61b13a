"""``Readout``: a fixed-size text panel that repaints cheaply and without a layout pass.

``Static.update`` asks for a new layout of the whole screen every time (its size may
change); status lines updated on every keystroke do not need that. It also renders through
Textual's content pipeline on every repaint, even for one line of text; a
``Readout`` renders its content to strips once per change of content, width or style and
hands those out row by row (Line API). A new content for a readout of several rows whose
width and style are known is rendered at once and only the rows that differ are repainted:
the token details change one to three of their rows as the selected token moves, and a
frame that repaints fewer rows has fewer rows of every widget beneath to compose.

Leaves out scrolling: give it a fixed height in app.tcss; rows past it are not shown.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from tui_tok.explore.visible import visible


class Readout(Widget):
    """Shows one renderable; give it a fixed height in app.tcss."""

    def __init__(self, content: RenderableType = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._content: RenderableType = Text(content) if isinstance(content, str) else content
        self._strips: list[Strip] = []
        self._strips_key: tuple[int, Style] | None = None

    @property
    def content(self) -> RenderableType:
        return self._content

    def show(self, content: RenderableType) -> None:
        """Replace what is shown (repainting only the rows that changed); plain strings are never read as
        markup, and their controls are drawn (they may quote the file: an error, a search's message)."""
        self._content = Text(visible(content, lines=True)) if isinstance(content, str) else content
        key = self._strips_key
        size = self.content_size
        if key is None or not self.is_mounted or key[0] != size.width or size.height <= 1:
            # a one-row readout gains nothing from comparing rows: render it when it is drawn
            self._strips_key = None
            self.refresh()
            return
        old = self._strips
        self._strips = self.render_lines_of(*key)
        width = key[0]
        for y, strip in enumerate(self._strips):
            if y >= len(old) or strip != old[y]:
                self.refresh(Region(0, y, width, 1))
        for y in range(len(self._strips), len(old)):
            self.refresh(Region(0, y, width, 1))

    def render(self) -> RenderableType:
        """The content (what tests read; drawing goes through ``render_line``)."""
        return self._content

    def notify_style_update(self) -> None:
        self._strips_key = None
        super().notify_style_update()

    def render_lines_of(self, width: int, style: Style) -> list[Strip]:
        """The content as rows of ``width`` cells on ``style`` (subclasses may lay it out themselves)."""
        console = self.app.console
        lines = console.render_lines(self._content, console.options.update_width(width), style=style, pad=True)
        return [Strip(line, width) for line in lines]

    def render_lines(self, crop: Region) -> list[Strip]:
        # the style once per repaint, not per row: rich_style walks every ancestor's styles
        width = self.content_size.width
        style = self.rich_style
        key = (width, style)
        if self._strips_key != key:
            self._strips = self.render_lines_of(width, style)
            self._strips_key = key
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        if y < len(self._strips):
            return self._strips[y]
        style = self._strips_key[1] if self._strips_key is not None else self.rich_style
        return Strip.blank(self.content_size.width, style)
