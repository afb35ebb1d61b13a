"""The model picker ``tui-tok`` shows without an argument: the bundled sample first, then the GGUF
files found in ollama, the Hugging Face cache, LM Studio and llama.cpp's cache; or type a path,
URL, ``hf:…``, ``OWNER/REPO:QUANT`` or ``ollama:…`` in the box.

Each row's architecture and tokenizer are read in a background worker (headers only, strings not
decoded) and filled in as they come. ``pick_model()`` runs the picker as its own small app and
returns what to open (None when the user quits).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from tui_tok.samples import DEFAULT_SAMPLE
from tui_tok.sources.stores import StoredModel, find_models
from tui_tok.sources.summary import human_size, model_facts
from tui_tok.ui.widgets.footer import Footer  # fitted to the width: F1-F9 at 80 columns


@dataclass(frozen=True, slots=True)
class Choice:
    """One row of the picker."""

    store: str
    name: str
    path: Path
    size: int
    spec: str
    """What is opened when the row is chosen."""


def sample_choice() -> Choice:
    size = DEFAULT_SAMPLE.stat().st_size if DEFAULT_SAMPLE.exists() else 0
    return Choice("sample", "Qwen3 vocabulary (bundled)", DEFAULT_SAMPLE, size, str(DEFAULT_SAMPLE))


def stored_choice(m: StoredModel) -> Choice:
    return Choice(m.store, m.name, m.path, m.size, m.spec)


class PickerScreen(Screen[str | None]):
    """Choose a model; dismisses with its spec (or the typed one), None on quit."""

    BINDINGS = [Binding("escape", "quit_picker", "Quit"), Binding("q", "quit_picker", "Quit", show=False)]
    DEFAULT_CSS = """
    PickerScreen #picker-title { padding: 0 1; text-style: bold; }
    PickerScreen #picker-hint { padding: 0 1; color: $text-muted; }
    PickerScreen #picker-table { height: 1fr; }
    PickerScreen #picker-input { dock: bottom; margin-bottom: 1; }
    """

    def __init__(self, choices: list[Choice], *, read_facts: bool = True) -> None:
        super().__init__()
        self.choices = choices
        self.read_facts = read_facts

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Open a model: {len(self.choices)} found", id="picker-title")
            yield Static("Enter opens the row; or type a path, URL, hf:OWNER/REPO/FILE.gguf, OWNER/REPO:QUANT "
                         "or ollama:NAME below", id="picker-hint")
            yield DataTable(id="picker-table", cursor_type="row", zebra_stripes=True)
            yield Input(placeholder="path, URL or shorthand, then Enter", id="picker-input")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#picker-table", DataTable)
        table.add_column("source", key="store")
        table.add_column("model", key="name")
        table.add_column("size", key="size")
        table.add_column("architecture", key="arch")
        table.add_column("tokenizer", key="tok")
        for i, c in enumerate(self.choices):
            table.add_row(c.store, c.name, human_size(c.size), "…", "…", key=str(i))
        table.focus()
        if self.read_facts:
            self.fill_facts()

    @work(thread=True, exclusive=True, group="facts", description="reading model headers")
    def fill_facts(self) -> None:
        for i, c in enumerate(self.choices):
            facts = model_facts(c.path)
            if facts.error is not None:
                arch, tok = "?", "unreadable"
            else:
                arch = facts.architecture
                tok = facts.tokenizer + (f" · {facts.n_tokens:,}" if facts.n_tokens else "")
                if facts.split:
                    tok += f" · {facts.split}"
            self.app.call_from_thread(self._set_facts, i, arch, tok)

    def _set_facts(self, row: int, arch: str, tok: str) -> None:
        table = self.query_one("#picker-table", DataTable)
        table.update_cell(str(row), "arch", arch)
        table.update_cell(str(row), "tok", tok, update_width=True)

    @on(DataTable.RowSelected, "#picker-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        self.dismiss(self.choices[int(str(event.row_key.value))].spec)

    @on(Input.Submitted, "#picker-input")
    def _typed(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())

    def action_quit_picker(self) -> None:
        self.dismiss(None)


class PickerApp(App[str | None]):
    """The picker on its own, before the explorer starts."""

    TITLE = "tui-tok"

    def __init__(self, choices: list[Choice], *, read_facts: bool = True) -> None:
        super().__init__()
        self.choices = choices
        self.read_facts = read_facts

    def on_mount(self) -> None:
        self.push_screen(PickerScreen(self.choices, read_facts=self.read_facts), self.exit)


def pick_model() -> str | None:
    """Run the picker; the sample alone (no store holds a model) opens without asking."""
    choices = [sample_choice(), *(stored_choice(m) for m in find_models())]
    if len(choices) == 1:
        return choices[0].spec
    return PickerApp(choices).run()
