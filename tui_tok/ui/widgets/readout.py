"""``Readout``: a fixed-size text panel that repaints without a layout pass.

``Static.update`` asks for a new layout of the whole screen every time (its size may
change); status lines updated on every keystroke do not need that, and on a busy screen the
layout pass costs more than everything else a keystroke does.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget


class Readout(Widget):
    """Shows one renderable; give it a fixed height in app.tcss."""

    def __init__(self, content: RenderableType = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._content: RenderableType = Text(content) if isinstance(content, str) else content

    @property
    def content(self) -> RenderableType:
        return self._content

    def show(self, content: RenderableType) -> None:
        """Replace what is shown; plain strings are never read as markup."""
        self._content = Text(content) if isinstance(content, str) else content
        self.refresh()

    def render(self) -> RenderableType:
        return self._content
