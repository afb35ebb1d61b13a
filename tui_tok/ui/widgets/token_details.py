"""``TokenDetails``: label/value rows describing the selected token."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from tui_tok.ui.widgets.readout import Readout


class TokenDetails(Readout):
    """Rows from ``explore.token_info.token_rows``."""

    rows: list[tuple[str, str]] = []
    """What is shown, as (label, value) pairs."""

    def show_rows(self, rows: list[tuple[str, str]], *, title: str = "Token") -> None:
        if rows == self.rows and title == self.border_title:
            return  # typing keeps the same token selected: skip the re-render
        self.rows = rows
        table = Table.grid(padding=(0, 1))
        table.add_column(style="bold", no_wrap=True)
        table.add_column(overflow="fold")
        for label, value in rows:
            table.add_row(Text(label), Text(value))  # values hold [ ] that are not markup
        self.border_title = title
        self.show(table)

    def clear_rows(self, message: str = "no token selected") -> None:
        self.rows = []
        self.show(Text(message))
