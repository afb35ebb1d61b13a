"""``TemplateSource``: the chat template's source in a read-only, line-numbered box (a modal).

Opened from the Chat view; when the last render failed, the cursor starts on the failing line and
column so the error's context can be read in full. Escape closes it.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import TextArea

from tui_tok.explore.display import editor_text
from tui_tok.explore.visible import visible_repr
from tui_tok.ui.widgets.text_keys import TextBox


class TemplateSource(ModalScreen[None]):
    """Shows ``source``; ``line``/``column`` (1-based) put the cursor on an error."""

    BINDINGS = [Binding("escape,ctrl+s,q", "dismiss", "Close")]

    def __init__(self, name: str, source: str, *, line: int | None = None, column: int | None = None) -> None:
        super().__init__()
        self._title = Text(f"template {visible_repr(name)} · {len(source):,} characters · Esc closes")
        # controls drawn one character each, so the error's line and column still point right
        self._source = "\n".join(map(editor_text, source.split("\n")))
        self._at = (max(0, (line or 1) - 1), max(0, (column or 1) - 1))

    def compose(self) -> ComposeResult:
        yield TextBox(self._source, read_only=True, show_line_numbers=True, soft_wrap=False, id="chat-source")

    def on_mount(self) -> None:
        area = self.query_one("#chat-source", TextArea)
        area.border_title = self._title
        area.cursor_location = self._at
        area.scroll_cursor_visible(center=True, animate=False)
        area.focus()
