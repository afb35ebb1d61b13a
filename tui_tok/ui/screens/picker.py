"""The model picker ``tui-tok`` shows without an argument: the bundled sample first, then the GGUF
files found in ollama, the Hugging Face cache, LM Studio and llama.cpp's cache; or type a path,
URL, ``hf:…``, ``OWNER/REPO:QUANT`` or ``ollama:…`` in the box.

Each row's architecture and tokenizer are read in a background worker (headers only, strings not
decoded) and filled in as they come; a file that cannot be read says why in its row.
``pick_model()`` runs the picker as its own small app and returns the model, read (None when the
user quits). The choice is read inside the picker, in a worker: a mistyped path or a broken file
is an error line in the picker, which stays open for another try (the app used to exit with the
error on the shell, where the next keys typed ran as commands).

Typing anywhere goes to the path box (``widgets/search_box.py``); no single letter quits (a
path has ``q`` in it): Escape or ctrl+q does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.filter import LineFilter
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from tui_tok.errors import TuiTokError
from tui_tok.explore.visible import visible
from tui_tok.gguf import GGUFFile
from tui_tok.samples import DEFAULT_SAMPLE
from tui_tok.sources.stores import StoredModel, find_models
from tui_tok.sources.summary import human_size, model_facts
from tui_tok.ui.drop_controls import DROP_CONTROLS
from tui_tok.ui.widgets.footer import Footer  # fitted to the width: F1-F9 at 80 columns
from tui_tok.ui.widgets.search_box import SearchBox, type_to_search
from tui_tok.ui.widgets.text_keys import TEXT_BOX_BINDINGS, TextBoxActions


@dataclass(frozen=True, slots=True)
class Choice:
    """One row of the picker."""

    store: str
    name: str
    path: Path
    size: int
    spec: str
    """What is opened when the row is chosen."""


@dataclass(frozen=True, slots=True)
class Picked:
    """What the picker hands back: the spec as chosen or typed (its name in the header) and the
    file, read."""

    spec: str
    gguf: GGUFFile


Opener = Callable[[str], GGUFFile]
"""Reads a model spec (a path, URL or shorthand) as the explorer does; raises ``TuiTokError``."""


def open_spec(spec: str) -> GGUFFile:
    from tui_tok.sources import read_model

    return read_model(spec, texts=("tokenizer.ggml.merges",))


def sample_choice() -> Choice:
    size = DEFAULT_SAMPLE.stat().st_size if DEFAULT_SAMPLE.exists() else 0
    return Choice("sample", "Qwen3 vocabulary (bundled)", DEFAULT_SAMPLE, size, str(DEFAULT_SAMPLE))


def stored_choice(m: StoredModel) -> Choice:
    return Choice(m.store, m.name, m.path, m.size, m.spec)


class PickerScreen(Screen[Picked | None]):
    """Choose a model; dismisses with it read (the row's or the typed one), None on quit."""

    BINDINGS = [Binding("escape", "quit_picker", "Quit")]
    SEARCH_BOX = "picker-input"
    TYPED_FROM = frozenset({"picker-table"})
    """What is typed on the table goes to the path box (``widgets/search_box.py``)."""
    DEFAULT_CSS = """
    PickerScreen #picker-title { padding: 0 1; text-style: bold; }
    PickerScreen #picker-hint { padding: 0 1; color: $text-muted; }
    PickerScreen #picker-table { height: 1fr; }
    PickerScreen #picker-status { padding: 0 1; height: auto; max-height: 3; }
    PickerScreen #picker-status.-error { color: $text-error; }
    PickerScreen #picker-input { margin-bottom: 1; }
    """

    def __init__(self, choices: list[Choice], *, read_facts: bool = True, opener: Opener = open_spec) -> None:
        super().__init__()
        self.choices = choices
        self.read_facts = read_facts
        self.opener = opener
        self.errors: dict[int, str] = {}
        """Why each unreadable row cannot be opened (by row)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Open a model: {len(self.choices)} found", id="picker-title")
            yield Static(
                "Enter opens the row; or type a path, URL, hf:OWNER/REPO/FILE.gguf, OWNER/REPO:QUANT "
                "or ollama:NAME below",
                id="picker-hint",
            )
            yield DataTable(id="picker-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="picker-status")
            yield SearchBox(placeholder="path, URL or shorthand, then Enter", id="picker-input")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#picker-table", DataTable)
        table.add_column("source", key="store")
        table.add_column("model", key="name")
        table.add_column("size", key="size")
        table.add_column("architecture", key="arch")
        table.add_column("tokenizer", key="tok")
        for i, c in enumerate(self.choices):
            # Text, never str: a DataTable reads a str cell as markup, and names are the stores'
            table.add_row(c.store, Text(visible(c.name)), human_size(c.size), "…", "…", key=str(i))
        table.focus()
        if self.read_facts:
            self.fill_facts()

    @work(thread=True, exclusive=True, group="facts", description="reading model headers")
    def fill_facts(self) -> None:
        for i, c in enumerate(self.choices):
            facts = model_facts(c.path)
            if facts.error is not None:
                # the start of the reason (the whole of it made the table scroll sideways):
                # in full under the table when the row is highlighted
                reason = facts.error.removeprefix(f"{c.path}: ")  # with the offset and key
                arch, tok = "-", f"cannot open: {reason[:40]}…" if len(reason) > 40 else f"cannot open: {reason}"
                self.app.call_from_thread(self.errors.__setitem__, i, facts.error)
            else:
                arch = facts.architecture
                tok = facts.tokenizer + (f" · {facts.n_tokens:,}" if facts.n_tokens else "")
                if facts.split:
                    tok += f" · {facts.split}"
            self.app.call_from_thread(self._set_facts, i, arch, tok)

    def _set_facts(self, row: int, arch: str, tok: str) -> None:
        table = self.query_one("#picker-table", DataTable)
        table.update_cell(str(row), "arch", Text(visible(arch)))  # the file's own strings: never markup
        table.update_cell(str(row), "tok", Text(visible(tok)), update_width=True)
        if table.cursor_row == row:
            self._show_row_error(row)

    @on(DataTable.RowHighlighted, "#picker-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_row_error(int(str(event.row_key.value)))

    def _show_row_error(self, row: int) -> None:
        """Under the table, in full: why the highlighted row cannot be opened (its cell may be cut)."""
        error = self.errors.get(row)
        self._status(error or "", error=error is not None)

    def _status(self, message: str, *, error: bool = False) -> None:
        status = self.query_one("#picker-status", Static)
        status.update(Text(visible(message)))
        status.set_class(error, "-error")

    @on(DataTable.RowSelected, "#picker-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        choice = self.choices[int(str(event.row_key.value))]
        self._open(choice.spec, str(choice.path))

    @on(Input.Submitted, "#picker-input")
    def _typed(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self._open(event.value.strip(), event.value.strip())

    def _open(self, spec: str, source: str) -> None:
        self._status(f"opening {source}…")
        self._read(spec, source)

    @work(thread=True, exclusive=True, group="open", description="reading the model")
    def _read(self, spec: str, source: str) -> None:
        """Read ``source`` (a row's file, or what was typed); an error stays in the picker."""
        try:
            gguf = self.opener(source)
        except TuiTokError as exc:
            self.app.call_from_thread(self._failed, str(exc))
        else:
            self.app.call_from_thread(self.dismiss, Picked(spec, gguf))

    def _failed(self, error: str) -> None:
        self._status(error, error=True)
        self.app.bell()

    def action_quit_picker(self) -> None:
        self.dismiss(None)


class PickerApp(TextBoxActions, App[Picked | None]):
    """The picker on its own, before the explorer starts."""

    TITLE = "tui-tok"
    BINDINGS = TEXT_BOX_BINDINGS  # ctrl+a, alt+x in the path box, as in the explorer

    def __init__(self, choices: list[Choice], *, read_facts: bool = True, opener: Opener = open_spec) -> None:
        super().__init__()
        self.choices = choices
        self.read_facts = read_facts
        self.opener = opener

    def on_mount(self) -> None:
        self.push_screen(PickerScreen(self.choices, read_facts=self.read_facts, opener=self.opener), self.exit)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and type_to_search(self, event):
            return
        await super().on_event(event)

    def get_line_filters(self) -> Sequence[LineFilter]:
        return [*super().get_line_filters(), DROP_CONTROLS]  # as the explorer: no raw control is drawn


def pick_model() -> str | Picked | None:
    """Run the picker: the model chosen, read (None on quit); the sample alone (no store holds a
    model) is not asked about: its spec comes back, to be read as a typed one is."""
    choices = [sample_choice(), *(stored_choice(m) for m in find_models())]
    if len(choices) == 1:
        return choices[0].spec
    return PickerApp(choices).run()
