"""``FixDialog``: the Diagnostics view's "Fix…": what the finding's fix changes, the zero-copy forms
(llama.cpp --override-kv, ollama Modelfile), and a path to write the repaired copy to.

The copy is written in a worker thread (copying tens of GB takes minutes) with a progress bar;
Escape while it runs stops it and leaves nothing behind (``gguf.rewrite`` removes its temporary
file). After writing, the copy is linted and the result shown. Every text from the file is shown as
``rich.text.Text``, never markup.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, ProgressBar, Static

from tui_tok.errors import TuiTokError
from tui_tok.explore.fix.edits import Edit, describe
from tui_tok.explore.fix.plan import after_summary, apply_edits, zero_copy_lines
from tui_tok.explore.lint import Finding
from tui_tok.explore.visible import visible
from tui_tok.gguf.types import GGUFFile


class CopyStopped(Exception):
    """Raised in the copy's progress callback when the user stops it."""


def default_output(path: Path) -> Path:
    """``model.gguf`` -> ``model.fixed.gguf`` beside it (``model.fixed-2.gguf`` ... when taken)."""
    stem = path.name.removesuffix(".gguf")
    candidate = path.with_name(f"{stem}.fixed.gguf")
    n = 2
    while candidate.exists() or candidate.is_symlink():
        candidate = path.with_name(f"{stem}.fixed-{n}.gguf")
        n += 1
    return candidate


class FixDialog(ModalScreen[Path | None]):
    """Shows ``edits`` (the fix of ``finding``) on ``gguf`` and writes the copy where the user says;
    dismissed with the path written, or None."""

    DEFAULT_CSS = """
    FixDialog { align: center middle; }
    #fix-box { width: 90%; max-width: 110; height: auto; max-height: 90%; border: round $accent;
               padding: 0 1; background: $surface; }
    #fix-change { height: auto; max-height: 12; margin-bottom: 1; }
    #fix-path { margin-bottom: 1; }
    #fix-progress { display: none; }
    #fix-progress.-running { display: block; }
    #fix-status { height: auto; }
    #fix-buttons { height: auto; align-horizontal: right; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel / stop")]

    def __init__(self, gguf: GGUFFile, finding: Finding, edits: list[Edit]) -> None:
        super().__init__()
        self.gguf = gguf
        self.finding = finding
        self.edits = edits
        self.written: Path | None = None
        self.stop_requested = threading.Event()
        self.copying = False

    def compose(self) -> ComposeResult:
        with Vertical(id="fix-box"):
            yield Static(self.change_text(), id="fix-change")
            yield Label("Write the repaired copy to (the file itself is never changed):")
            yield Input(visible(str(default_output(Path(self.gguf.path)))), id="fix-path")
            yield ProgressBar(id="fix-progress", show_eta=False)
            yield Static("", id="fix-status")
            with Horizontal(id="fix-buttons"):
                yield Button("Write copy", id="fix-write", variant="primary")
                yield Button("Cancel", id="fix-cancel")

    def on_mount(self) -> None:
        self.query_one("#fix-box").border_title = f"Fix {self.finding.code}"
        self.query_one("#fix-path", Input).focus()

    def change_text(self) -> Text:
        text = Text()
        text.append(f"{visible(self.finding.message)}\n\n")  # messages and values quote the file
        text.append("change\n", style="bold")
        for e in self.edits:
            text.append(f"  {visible(describe(self.gguf, e))}\n")
        for line in zero_copy_lines(self.edits):
            text.append(f"\n{visible(line)}", style="dim")
        return text

    @on(Button.Pressed, "#fix-write")
    @on(Input.Submitted, "#fix-path")
    def start_copy(self) -> None:
        if self.copying:
            return
        path = self.query_one("#fix-path", Input).value.strip()
        if not path:
            self.show_status("name the file to write", error=True)
            return
        self.copying = True
        self.stop_requested.clear()
        self.query_one("#fix-write", Button).disabled = True
        self.query_one("#fix-progress", ProgressBar).add_class("-running")
        self.show_status("writing…")
        self.copy_worker(Path(path).expanduser())

    @on(Button.Pressed, "#fix-cancel")
    def action_cancel(self) -> None:
        if self.copying:
            self.stop_requested.set()
            self.show_status("stopping…")
        else:
            self.dismiss(self.written)

    def show_status(self, message: str, *, error: bool = False) -> None:
        self.query_one("#fix-status", Static).update(Text(visible(message, lines=True),
                                                          style="bold red" if error else ""))  # fmt: skip

    def show_progress(self, done: int, total: int) -> None:
        self.query_one("#fix-progress", ProgressBar).update(total=max(total, 1), progress=done)

    @work(thread=True, exclusive=True, group="fix", description="writing the repaired copy")
    def copy_worker(self, out: Path) -> None:
        last = [0.0]

        def progress(done: int, total: int) -> None:
            if self.stop_requested.is_set():
                raise CopyStopped
            now = time.monotonic()
            if now - last[0] >= 0.05 or done == total:
                last[0] = now
                self.app.call_from_thread(self.show_progress, done, total)

        try:
            result = apply_edits(self.gguf, self.edits, out, progress=progress)
            self.app.call_from_thread(self.show_progress, 1, 1)
            summary = after_summary(result.path, {self.finding.code})
        except CopyStopped:
            self.app.call_from_thread(self.copy_finished, None, "stopped: nothing was written")
        except TuiTokError as exc:
            self.app.call_from_thread(self.copy_finished, None, str(exc))
        except Exception as exc:  # a bug: show it, keep the app
            self.app.call_from_thread(self.copy_finished, None, f"internal error: {type(exc).__name__}: {exc}")
        else:
            self.app.call_from_thread(self.copy_finished, result.path, f"wrote {result.path}\n{summary}")

    def copy_finished(self, path: Path | None, message: str) -> None:
        self.copying = False
        self.written = path or self.written
        self.query_one("#fix-write", Button).disabled = False
        if path is None:
            self.query_one("#fix-progress", ProgressBar).remove_class("-running")
        self.show_status(message, error=path is None)
        self.query_one("#fix-cancel", Button).label = "Close" if path is not None else "Cancel"
