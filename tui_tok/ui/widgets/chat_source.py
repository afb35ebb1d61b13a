"""``TemplateEditor``: the chat template's source, editable, in the Chat view (ctrl+s shows it).

It takes the conversation's place on the left while the prompt stays on the right, so an edit's
new prompt (or its error, with line and column) is seen as it is typed. It is an ``Editor``: the
text is exactly the template's (CR, NUL, ZWJ kept; drawn one cell per character, controls as
pictures), with line numbers and no wrapping, so an error's line and column point at what is shown.
The screen turns its edits into the ``(edited)`` template; the file's own templates are never
changed (tui-tok never writes to a file it opens). Renders nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from tui_tok.explore.visible import visible_repr
from tui_tok.ui.widgets.editor import Editor


class TemplateEditor(Editor):
    """The template named ``name``; ``show`` loads another (its undo history starts afresh)."""

    def __init__(self, *, on_edit: Callable[[], None] | None = None, id: str | None = None) -> None:
        super().__init__("", on_edit=on_edit, show_line_numbers=True, soft_wrap=False, id=id)
        self.template_name = ""

    def show(self, name: str, source: str, *, line: int | None = None, column: int | None = None) -> None:
        """Hold ``source`` (unless it is the text already); ``line``/``column`` (1-based) put the cursor on an error."""
        self.template_name = name
        if self.text != source:
            self.load_text(source)
        self.retitle()
        if line is not None:
            self.cursor_location = (max(0, line - 1), max(0, (column or 1) - 1))
            self.scroll_cursor_visible(center=True, animate=False)

    def rename(self, name: str) -> None:
        """Its text is now template ``name`` (the first edit makes it ``(edited)``)."""
        if name != self.template_name:
            self.template_name = name
            # after the edit: inside it, the editor repaints only the rows that changed
            self.call_later(self.retitle)

    def retitle(self) -> None:
        self.border_title = Text(f"template {visible_repr(self.template_name)}")
        self.border_subtitle = "edits re-render · ^S conversation · ^L load a file"
