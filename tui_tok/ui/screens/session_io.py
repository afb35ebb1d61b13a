"""Files in and out of the explorer: sessions, the text, the tokens, the chat prompt.

Each command asks for a path in a small modal (``PathPrompt``: Enter confirms, Escape cancels;
the last path of each kind is offered again), does its work and says what it did in a
notification; a file that cannot be read or written is one warning line, never a traceback.
The keys (alt+letter, priority bindings of the app, so they also work inside text boxes) and
the palette commands are listed in ``ui/data_keys.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from tui_tok.errors import TuiTokError
from tui_tok.explore import session_file
from tui_tok.explore.copy_forms import bytes_of, text_of, token_records
from tui_tok.explore.visible import visible
from tui_tok.ui import session_io
from tui_tok.ui.data_keys import DATA_COMMANDS

MAX_TEXT_BYTES = 256 * 1024 * 1024
"""A larger text file is refused unread (the explorer is built for texts up to a few tens of MB)."""

DEFAULTS = {"save_session": "tui-tok-session.json", "load_session": "tui-tok-session.json", "open_text": "",
            "save_text": "text.txt", "export_tokens": "tokens.jsonl", "export_prompt": "chat-prompt.json"}  # fmt: skip


class PathPrompt(ModalScreen[str | None]):
    """Ask for a file path: Enter gives it, Escape gives None."""

    DEFAULT_CSS = """
    PathPrompt { align: center middle; }
    PathPrompt > Vertical { width: 80; height: auto; border: round $accent; background: $surface; padding: 0 1; }
    PathPrompt Input { margin: 1 0 0 0; }
    PathPrompt #path-hint { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, value: str, hint: str) -> None:
        super().__init__()
        self._title, self._value, self._hint = title, value, hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self._title), id="path-title")
            yield Input(self._value, placeholder="path", id="path-input")
            yield Static(Text(self._hint + "  ·  Enter: OK  ·  Esc: cancel"), id="path-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        self.dismiss(value or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


def palette_commands(app: App[Any]) -> Iterable[SystemCommand]:
    """The file commands for the palette (each names its key)."""
    for key, action, title, help_text in DATA_COMMANDS:
        yield SystemCommand(title, f"{help_text} ({key})", lambda a=action: run(app, a))


def run(app: App[Any], action: str) -> None:
    """Ask for the path of ``action``, then do it."""
    title = next(t for _k, a, t, _h in DATA_COMMANDS if a == action)
    remembered: dict[str, str] = getattr(app, "data_paths", None) or {}
    setattr(app, "data_paths", remembered)
    value = remembered.get(action, DEFAULTS[action])
    hint = f"relative to {visible(str(Path.cwd()))}"

    def done(path: str | None) -> None:
        if path is None:
            return
        remembered[action] = path
        try:
            HANDLERS[action](app, Path(path).expanduser())
        except TuiTokError as exc:
            app.notify(visible(str(exc)), title=title.rstrip("…"), severity="error", markup=False)
        except OSError as exc:
            app.notify(
                f"{visible(path)}: {exc.strerror or exc}", title=title.rstrip("…"), severity="error", markup=False
            )

    app.push_screen(PathPrompt(title, value, hint), done)


def _say(app: App[Any], what: str, path: Path) -> None:
    app.notify(f"{what} {visible(str(path))}", markup=False)


def save_session(app: App[Any], path: Path) -> None:
    session_file.save(path, session_io.collect(app))
    _say(app, "Session saved to", path)


def load_session(app: App[Any], path: Path) -> None:
    """A session file; or a conversation file as ``tui-tok chat --messages`` reads it (a list of
    messages, or an object with ``"messages"`` and ``"tools"``): then only the conversation changes."""
    doc = session_file.read_json(path)
    if isinstance(doc, dict) and "format" in doc:
        state, what = session_file.from_json(doc, str(path)), "Session"
    else:
        state, what = session_io.with_conversation(app, *session_file.conversation_of(doc, str(path))), "Conversation"
    notes = session_io.apply(app, state)
    _say(app, f"{what} loaded from", path)
    for note in notes:
        app.notify(visible(note), severity="warning", markup=False)


def open_text(app: App[Any], path: Path) -> None:
    if path.is_file() and path.stat().st_size > MAX_TEXT_BYTES:
        raise TuiTokError(f"{path}: {path.stat().st_size:,} bytes; at most {MAX_TEXT_BYTES:,} are opened")
    with open(path, "rb") as f:  # a FIFO or device: read no more than the bound
        data = f.read(MAX_TEXT_BYTES + 1)
    if len(data) > MAX_TEXT_BYTES:
        raise TuiTokError(f"{path}: more than {MAX_TEXT_BYTES:,} bytes; not opened")
    setattr(app, "text", text_of(data))
    if app.current_mode != "tokenize":
        app.switch_mode("tokenize")
    _say(app, f"Opened ({len(data):,} bytes)", path)


def save_text(app: App[Any], path: Path) -> None:
    data = bytes_of(getattr(app, "text"))
    _write(path, data)
    _say(app, f"Text saved ({len(data):,} bytes) to", path)


def export_tokens(app: App[Any], path: Path) -> None:
    """Tokenize the text again (in a thread: a long text takes seconds) with the Tokenize view's
    toggles and write one line per token, byte offsets from ``Tokenizer.tokenize_arrays``."""
    tok = getattr(app, "tokenizer", None)
    if tok is None:
        raise TuiTokError("the tokenizer is not ready (or could not be built): nothing to export")
    state = session_io.collect(app)
    add = state.toggles.get("add_special", True)
    parse = state.toggles.get("parse_special", False)
    data = bytes_of(state.text)
    lock = getattr(app, "session").lock

    def work() -> None:
        try:
            with lock:
                ids, starts, ends = tok.tokenize_arrays(data, add_special=add, parse_special=parse)[:3]
                lines = token_records(ids.tolist(), starts.tolist(), ends.tolist(), tok.token_to_piece)
                _write(path, (line.encode("utf-8") + b"\n" for line in lines))  # streamed: 3M tokens, no 150 MB string
        except (OSError, TuiTokError) as exc:
            message = f"{visible(str(path))}: {getattr(exc, 'strerror', None) or exc}"
            app.call_from_thread(app.notify, message, severity="error", markup=False)
            return
        app.call_from_thread(_say, app, f"Exported {len(ids):,} tokens to", path)

    app.run_worker(work, thread=True, group="export", description="exporting the tokens")


def export_prompt(app: App[Any], path: Path) -> None:
    view = session_io.view_of(app, "chat")
    prompt = getattr(view, "prompt", None)
    if prompt is None:
        raise TuiTokError("no rendered chat prompt: open the Chat view (F5) first")
    _write(path, session_io.chat_json(prompt).encode("ascii"))
    _say(app, f"Chat prompt ({len(prompt.ids):,} tokens) exported to", path)


def _write(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Whole or not at all: a temporary file next to ``path`` (written in parts), renamed over it."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as f:
            if isinstance(data, bytes):
                f.write(data)
            else:
                f.writelines(data)
        tmp.replace(path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


HANDLERS: dict[str, Callable[[App[Any], Path], None]] = {
    "save_session": save_session, "load_session": load_session, "open_text": open_text,
    "save_text": save_text, "export_tokens": export_tokens, "export_prompt": export_prompt,
}  # fmt: skip
