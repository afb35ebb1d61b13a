"""``TokenDetails``: label/value rows describing the selected token.

Laid out by hand, not with a Rich ``Table``: the table measured and wrapped every cell again
on each change (often per keystroke, as the selected token moves with the editor's cursor);
this wraps each value once with Rich's own word wrap, so the rows look the same.
Each pair is rendered on its own and kept, so a new token re-renders only the pairs that
differ (typing usually changes the position and counts, not the piece or its bytes).
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from tui_tok.explore.visible import visible
from tui_tok.ui.widgets.readout import Readout

LABEL_STYLE = Style(bold=True)
MAX_CACHED_ROWS = 256
"""Rendered label/value pairs kept (emptied when it grows past this)."""


class TokenDetails(Readout):
    """Rows from ``explore.token_info.token_rows``: labels in a bold column, values wrapped beside them."""

    rows: list[tuple[str, str]] = []
    """What is shown, as (label, value) pairs."""

    def __init__(self, content: RenderableType = "", *, id: str | None = None) -> None:
        super().__init__(content, id=id)
        self._row_strips: dict[tuple[object, ...], list[Strip]] = {}
        """Strips of each label/value pair by (label, value, label width, width, style)."""

    def show_rows(self, rows: list[tuple[str, str]], *, title: str = "Token") -> None:
        rows = [(label, visible(value, lines=True)) for label, value in rows]  # pieces are the file's
        if rows == self.rows and title == self.border_title:
            return  # typing keeps the same token selected: skip the re-render
        self.rows = rows
        if title != self.border_title:
            self.border_title = title  # a new title repaints the whole panel
        self.show(Text("\n".join(f"{label} {value}" for label, value in rows)))

    def clear_rows(self, message: str = "no token selected") -> None:
        self.rows = []
        self.show(Text(message))

    def render_lines_of(self, width: int, style: Style) -> list[Strip]:
        if not self.rows:
            return super().render_lines_of(width, style)
        label_width = min(max(len(label) for label, _ in self.rows), max(1, width - 2))
        cache = self._row_strips
        if len(cache) > MAX_CACHED_ROWS:
            cache.clear()
        out: list[Strip] = []
        for label, value in self.rows:
            key = (label, value, label_width, width, style)
            strips = cache.get(key)
            if strips is None:
                strips = cache[key] = self._render_row(label, value, label_width, width, style)
            out.extend(strips)
        return out

    def _render_row(self, label: str, value: str, label_width: int, width: int, style: Style) -> list[Strip]:
        """One label/value pair: the value wrapped beside the label, continuation lines indented."""
        console = self.app.console
        value_width = max(1, width - label_width - 1)
        out = Text(style=style, end="")
        # values hold [ ] that are not markup, hence Text, never markup strings
        text = Text(value)
        fits = "\n" not in value and cell_len(value) <= value_width
        lines = [text] if fits else text.wrap(console, value_width, overflow="fold")
        for k, line in enumerate(lines):
            if out:
                out.append("\n")
            out.append(
                label[:label_width].ljust(label_width) if k == 0 else " " * label_width, LABEL_STYLE if k == 0 else None
            )
            out.append(" ")
            out.append_text(line)
        rendered = console.render_lines(out, console.options.update_width(width), style=style, pad=True)
        return [Strip(line, width) for line in rendered]
