"""``TokenDetails``: label/value rows describing the selected token.

Laid out by hand, not with a Rich ``Table``: the table measured and wrapped every cell again
on each change (3-6 ms, often per keystroke, as the selected token moves with the editor's
cursor); this wraps each value once with Rich's own word wrap, so the rows look the same.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from tui_tok.ui.widgets.readout import Readout

LABEL_STYLE = Style(bold=True)


class TokenDetails(Readout):
    """Rows from ``explore.token_info.token_rows``: labels in a bold column, values wrapped beside them."""

    rows: list[tuple[str, str]] = []
    """What is shown, as (label, value) pairs."""

    def show_rows(self, rows: list[tuple[str, str]], *, title: str = "Token") -> None:
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
        console = self.app.console
        label_width = min(max(len(label) for label, _ in self.rows), max(1, width - 2))
        value_width = max(1, width - label_width - 1)
        out = Text(style=style, end="")
        for label, value in self.rows:
            # values hold [ ] that are not markup, hence Text, never markup strings
            text = Text(value)
            fits = "\n" not in value and cell_len(value) <= value_width
            lines = [text] if fits else text.wrap(console, value_width, overflow="fold")
            for k, line in enumerate(lines):
                if out:
                    out.append("\n")
                out.append(label[:label_width].ljust(label_width) if k == 0 else " " * label_width, LABEL_STYLE if k == 0 else None)
                out.append(" ")
                out.append_text(line)
        rendered = console.render_lines(out, console.options.update_width(width), style=style, pad=True)
        return [Strip(line, width) for line in rendered]
