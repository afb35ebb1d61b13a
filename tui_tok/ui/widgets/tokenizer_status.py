"""``TokenizerStatus``: a progress indicator while the tokenizer builds, a clear message if it cannot."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import LoadingIndicator, Static

from tui_tok.explore.visible import visible


class TokenizerStatus(Vertical):
    """Shown where a view needs the tokenizer; hidden (class ``-ready``) once it is built."""

    def compose(self) -> ComposeResult:
        yield LoadingIndicator()
        yield Static("building the tokenizer…", id="status-text")

    def on_mount(self) -> None:
        self.watch(self.app, "tokenizer_error", self._update)
        self.watch(self.app, "tokenizer", self._update)

    def _update(self, _value: object = None) -> None:
        error = getattr(self.app, "tokenizer_error", None)
        ready = getattr(self.app, "tokenizer", None) is not None
        text = self.query_one("#status-text", Static)
        if error:
            text.update(
                Text(
                    f"The tokenizer of this file cannot be built:\n{visible(error, lines=True)}\n\n"
                    "Metadata (F4) and vocabulary (F3) can still be browsed."
                )
            )
        self.set_class(bool(error), "-error")
        self.set_class(ready and not error, "-ready")
        self.set_class(not ready and not error, "-loading")
