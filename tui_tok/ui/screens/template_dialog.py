"""``TemplateFileDialog``: ask for a chat template file and read it (the Chat view's ctrl+l).

Enter reads the path typed (``~`` expanded, relative to the working directory) with
``explore.chat.template_file``'s bounds; a missing, unreadable, huge or binary file is one line
inside the dialog, which stays open for another try. Escape cancels. The path box completes
file names (``PathSuggester``: the completion is shown greyed, → or Tab takes it). The template is
only read here, never rendered: the view renders it in its worker, within the template deadline.
"""

from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Label, Static

from tui_tok.errors import TuiTokError
from tui_tok.explore.chat.template_file import MAX_TEMPLATE_BYTES, read_template_file
from tui_tok.explore.visible import visible

MAX_LISTED = 5000
"""Directory entries looked at for a completion (a directory of a million files costs no more)."""


class PathSuggester(Suggester):
    """Completes the last part of a path with the first entry of its directory that starts with it
    (a directory gets its ``/``); none when several entries share only the part typed."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        return complete_path(value)


def complete_path(value: str) -> str | None:
    """``value`` completed as far as the entries of its directory agree (``None``: nothing to add)."""
    if not value or value.endswith(("/.", "/..")) or value in (".", ".."):
        return None
    head, _, part = value.rpartition("/")
    folder = Path(os.path.expanduser(head + "/" if head or value.startswith("/") else "."))
    names: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for n, entry in enumerate(entries):
                if n >= MAX_LISTED:
                    break
                if entry.name.startswith(part) and (part.startswith(".") or not entry.name.startswith(".")):
                    names.append(entry.name + ("/" if entry.is_dir() else ""))
    except OSError:
        return None
    if not names:
        return None
    common = os.path.commonprefix(names)
    return value + common[len(part) :] if len(common) > len(part) else None


class TemplateFileDialog(ModalScreen[tuple[str, str] | None]):
    """Dismissed with (path as typed, template text), or None (Escape)."""

    DEFAULT_CSS = """
    TemplateFileDialog { align: center middle; }
    TemplateFileDialog > Vertical { width: 90; max-width: 100%; height: auto; border: round $accent;
                                    background: $surface; padding: 0 1; }
    TemplateFileDialog Input { margin: 1 0 0 0; }
    TemplateFileDialog #template-error { color: $error; height: auto; }
    TemplateFileDialog #template-hint { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("tab", "complete", "Complete", show=False)]

    def __init__(self, value: str = "") -> None:
        super().__init__()
        self._value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Load a chat template file (Jinja)", id="template-title")
            yield Input(
                self._value, placeholder="path/to/template.jinja", suggester=PathSuggester(), id="template-path"
            )
            yield Static("", id="template-error")
            yield Static(Text(f"relative to {visible(str(Path.cwd()))} · at most {MAX_TEMPLATE_BYTES:,} bytes  ·  "
                              "→/Tab: complete  ·  Enter: load  ·  Esc: cancel"), id="template-hint")  # fmt: skip

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_complete(self) -> None:
        box = self.query_one(Input)
        completed = complete_path(box.value)  # what the box shows greyed after the cursor
        if completed is not None:
            box.value = completed
            box.cursor_position = len(completed)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        path = event.value.strip()
        if not path:
            return
        try:
            text = read_template_file(os.path.expanduser(path))
        except TuiTokError as exc:
            self.query_one("#template-error", Static).update(Text(visible(str(exc))))
            return
        self.dismiss((path, text))

    def action_cancel(self) -> None:
        self.dismiss(None)
