"""What every view screen shares: the header line and the footer."""

from __future__ import annotations

from typing import cast

from textual.screen import Screen

from tui_tok.explore.metadata import header_line
from tui_tok.explore.visible import visible
from tui_tok.ui.host import ExplorerHost
from tui_tok.ui.session import Session


class ViewScreen(Screen[None]):
    """A view of the open file; ``VIEW`` names it in the header."""

    VIEW = ""

    @property
    def tui(self) -> ExplorerHost:
        """The app, seen through what views may use of it (``ui/host.py``)."""
        return cast(ExplorerHost, self.app)

    @property
    def session(self) -> Session:
        return self.tui.session

    def facts(self) -> str:
        # the architecture and name are the file's: drawn visibly, never as escape sequences
        return visible(header_line(self.session.gguf.metadata, file_name=self.session.name))
