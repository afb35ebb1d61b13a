"""The vocabulary view: every token, one search box (substring, ``/regex/``, ``#id``) and a type filter.

Searches run in an exclusive worker so typing never waits for a scan; each result says how
long it took, and its frame is composed as soon as it arrives (``paint_now``), not on the next
frame-timer tick.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Select, Static
from textual.worker import get_current_worker

from tui_tok.explore.counts import counted
from tui_tok.explore.token_info import token_rows
from tui_tok.explore.vocab_index import SearchCancelled, SearchResult, VocabIndex, search, token_facts
from tui_tok.tokenizer.core.types import TokenType
from tui_tok.ui.paint_now import paint_now
from tui_tok.ui.screens.base import ViewScreen
from tui_tok.ui.widgets.footer import Footer  # fitted to the width: F1-F9 at 80 columns
from tui_tok.ui.widgets.info_bar import InfoBar
from tui_tok.ui.widgets.readout import Readout
from tui_tok.ui.widgets.search_box import SearchBox
from tui_tok.ui.widgets.token_details import TokenDetails
from tui_tok.ui.widgets.vocab_table import VocabTable, header_text

TYPE_OPTIONS = [(t.name.lower(), int(t)) for t in TokenType]


class VocabScreen(ViewScreen):
    """Browse and search the vocabulary."""

    VIEW = "Vocabulary"
    # priority: the focus moves before the app hands on the next keys of a burst (ctrl+f ctrl+u text)
    BINDINGS = [
        Binding("ctrl+f", "focus_search", "Search", priority=True),
        Binding("ctrl+l", "focus_table", "Table", priority=True),
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    """Below 100 columns the token panel goes under the table (beside it, it hid the rank and
    bytes columns)."""
    SEARCH_BOX = "vocab-search"
    TYPED_FROM = frozenset({"vocab-table"})
    """What is typed on the table goes to the search box (``widgets/search_box.py``)."""

    @dataclass
    class Searched(Message):
        """A search worker finished."""

        generation: int
        result: SearchResult
        seconds: float

    def __init__(self) -> None:
        super().__init__()
        self._generation = 0
        self._pending_cursor: int | None = None
        self.last_result: SearchResult | None = None
        self.last_result_at = 0.0
        self._header = ""
        """perf_counter() when the last result was handed to the table (benchmarks read it)."""

    def compose(self) -> ComposeResult:
        yield InfoBar(self.facts(), self.VIEW)
        with Horizontal(id="vocab-bar"):
            yield SearchBox(placeholder="text, /regex/ (both on decoded text), #id", id="vocab-search")
            yield Select(TYPE_OPTIONS, prompt="any type", id="vocab-type", allow_blank=True)
        with Horizontal(id="vocab-main"):
            with Vertical(id="vocab-left"):
                yield Static("", id="vocab-header")
                yield VocabTable(id="vocab-table")
                yield Readout("indexing the vocabulary…", id="vocab-status")
            yield TokenDetails("", id="vocab-details")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#vocab-details", TokenDetails).border_title = "Token"
        self.watch(self.app, "vocab_index", self._index_changed)
        # the table, as in the metadata view: arrows move it, and typing searches anyway
        self.query_one("#vocab-table", VocabTable).focus()

    def on_screen_resume(self) -> None:
        token_id = self.tui.pending_vocab_token
        if token_id is not None:
            self.tui.pending_vocab_token = None
            self.show_token(token_id)

    def _index_changed(self, index: VocabIndex | None) -> None:
        if index is not None:
            self.run_search()
            self._warm_decoded(index)

    @work(thread=True, exclusive=True, group="vocab-decoded", description="decoding the vocabulary")
    def _warm_decoded(self, index: VocabIndex) -> None:
        """Build what byte-level pieces decode to now, so the first regex search does not wait."""
        index.decoded_view()

    def show_token(self, token_id: int) -> None:
        """Put ``token_id`` under the cursor, clearing the search so it is in the list."""
        self._pending_cursor = token_id
        search_box = self.query_one("#vocab-search", Input)
        type_box = self.query_one("#vocab-type", Select)
        if search_box.value or type_box.value != Select.BLANK:
            search_box.value = ""
            type_box.clear()
        self.run_search()
        self.query_one("#vocab-table", VocabTable).focus()

    @on(Input.Changed, "#vocab-search")
    @on(Select.Changed, "#vocab-type")
    def _query_changed(self) -> None:
        self.run_search()

    def run_search(self) -> None:
        self._generation += 1
        index = self.tui.vocab_index
        if index is None:
            return
        selected = self.query_one("#vocab-type", Select).value
        token_type = selected if isinstance(selected, int) else None
        self._search(self._generation, index, self.query_one("#vocab-search", Input).value, token_type)

    @work(thread=True, exclusive=True, group="vocab-search", description="searching the vocabulary")
    def _search(self, generation: int, index: VocabIndex, query: str, token_type: int | None) -> None:
        start = time.perf_counter()
        worker = get_current_worker()
        try:
            result = search(index, query, token_type=token_type, cancelled=lambda: worker.is_cancelled)
        except SearchCancelled:
            return
        if not worker.is_cancelled:
            self.post_message(self.Searched(generation, result, time.perf_counter() - start))

    def on_vocab_screen_searched(self, message: Searched) -> None:
        if message.generation != self._generation:
            return
        index = self.tui.vocab_index
        assert index is not None
        result = message.result
        self.last_result = result
        self.last_result_at = time.perf_counter()
        table = self.query_one("#vocab-table", VocabTable)
        table.show(index, result.ids, cursor_id=self._pending_cursor)
        self._pending_cursor = None
        self._update_header()
        status = self.query_one("#vocab-status", Readout)
        if result.error:
            status.show(result.error)
            status.add_class("-error")
        else:
            status.remove_class("-error")
            n = len(result.ids)
            what = (
                counted(n, "token")
                if result.kind == "all"
                else counted(n, f"{result.kind} match", f"{result.kind} matches")
            )
            timing = f" · {message.seconds * 1000:.1f} ms" if self.tui.show_timings else ""
            status.show(f"{what} of {index.n_tokens:,}{timing}")
        if not len(result.ids):
            self.query_one("#vocab-details", TokenDetails).clear_rows("no match")
        paint_now(self)

    @on(VocabTable.Resized)
    def _update_header(self) -> None:
        table = self.query_one("#vocab-table", VocabTable)
        header = header_text(value_label=table.value_label, piece_width=table.piece_width, text_width=table.text_width)
        if header != self._header:  # Static.update costs a layout pass: only when it changes
            self._header = header
            self.query_one("#vocab-header", Static).update(Text(header))

    @on(VocabTable.Highlighted)
    def _highlighted(self, event: VocabTable.Highlighted) -> None:
        index = self.tui.vocab_index
        if index is None:
            return
        tok = self.tui.tokenizer
        token_id = event.token_id
        piece = tok.token_to_piece(token_id) if tok is not None else None
        kind = tok.token_kind(token_id).value if tok is not None else "?"
        rows = token_rows(
            token_id=token_id,
            raw=index.pieces[token_id],
            piece=piece,
            span=None,
            kind=kind,
            facts=token_facts(index, token_id),
        )
        self.query_one("#vocab-details", TokenDetails).show_rows(rows)

    def action_focus_search(self) -> None:
        self.set_focus(self.query_one("#vocab-search", Input))  # at once (Widget.focus waits a turn)

    def action_focus_table(self) -> None:
        self.set_focus(self.query_one("#vocab-table", VocabTable))

    @on(Input.Submitted, "#vocab-search")
    def _submitted(self) -> None:
        self.action_focus_table()

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Search the vocabulary", "ctrl+f", self.action_focus_search)
        yield SystemCommand("Focus the vocabulary table", "ctrl+l", self.action_focus_table)
