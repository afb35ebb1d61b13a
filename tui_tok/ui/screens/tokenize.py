"""The tokenize view: type text, see each token's span coloured, its ids, counts and details.

An edit is tokenized inside the edit (``Editor.on_edit``) and drawn in the same frame
(``paint_now``): on the UI thread up to ``SYNC_CHARS`` (or a provisional line-by-line result,
``explore.incremental``, confirmed exactly ``CONFIRM_S`` after typing paused), else in an
exclusive worker (stale results dropped by generation). The engine (``explore.tokenize_engine``)
splices an edit of the last exact text between proven cuts; texts over ``WORKER_ONLY_CHARS``
are otherwise tokenized in stoppable parts, the exact count shown first (``Counted``) while the
index and lint builds wait (``text_idle``). Chunk cuts (``^R``): ``tokenize_cuts.py``. The text
is the app's (``TuiTokApp.text``): each edit sets it; one made in the compare view is loaded on return.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import ActiveBinding, Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import TextArea
from textual.widgets.text_area import Document
from textual.worker import get_current_worker

from tui_tok.errors import TuiTokError
from tui_tok.explore.incremental import split_chunks
from tui_tok.explore.layout import Rows, TokenLayout
from tui_tok.explore.stats import text_stats
from tui_tok.explore.token_info import token_byte_offset
from tui_tok.explore.tokenize_engine import TokenizeEngine, TokenizeRequest
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.ui.heap import warm_for_next_key
from tui_tok.ui.paint_now import paint_now
from tui_tok.ui.screens.toggles import CheckboxToggles
from tui_tok.ui.screens.tokenize_cuts import ChunkCuts, CutsReady
from tui_tok.ui.screens.tokenize_draw import DrawHint, draw_hint, drawn, every
from tui_tok.ui.screens.tokenize_select import TokenSelection
from tui_tok.ui.session_io import apply_pending_tokenize
from tui_tok.ui.token_ids import TokenIds
from tui_tok.ui.widgets.check_box import CheckBox as Checkbox
from tui_tok.ui.widgets.editor import Editor, load_text
from tui_tok.ui.widgets.footer import Footer  # fitted to the width: F1-F9 at 80 columns
from tui_tok.ui.widgets.id_strip import Flow, IdStrip
from tui_tok.ui.widgets.info_bar import InfoBar
from tui_tok.ui.widgets.readout import Readout
from tui_tok.ui.widgets.token_details import TokenDetails
from tui_tok.ui.widgets.token_view import TokenView
from tui_tok.ui.widgets.tokenizer_status import TokenizerStatus

SYNC_CHARS = 4_000
DEBOUNCE_CHARS = 20_000
DEBOUNCE_S = 0.05
WORKER_ONLY_CHARS = 200_000
"""Longer texts are never tokenized on the UI thread (splitting and laying out take longer than a frame)."""
PROVISIONAL_CHARS = 8_000
CONFIRM_S = 0.3
PROGRESS_S = 0.2
"""A long text's progress is shown at most this often (each message woke the UI thread: 10 MB of BPE, ~0.2 s)."""
CHECK_BOXES = (("add_special", "add special (BOS/EOS)  ^B"), ("parse_special", "parse special  ^T"),
               ("show_whitespace", "show whitespace  ^O"), ("show_pieces", "pieces, not ids  ^G"),
               ("show_cuts", "chunk cuts  ^R"), ("keep_cr", "keep CR in pastes"))  # fmt: skip


class TokenizeScreen(CheckboxToggles, TokenSelection):  # type: ignore[misc]  # DOMNode.action_toggle is async; the palette calls ours
    """Live tokenizer."""

    VIEW = "Tokenize"
    # the five toggles' keys are printed beside their checkboxes, so the footer leaves them out
    # (it had no room left for the view keys); the keys panel (?, F9) and the palette list them
    BINDINGS = [
        Binding("ctrl+b", "toggle('add_special')", "BOS/EOS", show=False),
        Binding("ctrl+t", "toggle('parse_special')", "Parse special", show=False),
        Binding("ctrl+o", "toggle('show_whitespace')", "Whitespace", show=False),
        Binding("ctrl+g", "toggle('show_pieces')", "Ids/pieces", show=False),
        # ^R, not ^K: the editor's ^K deletes to the end of the line
        Binding("ctrl+r", "toggle('show_cuts')", "Chunk cuts", show=False),
        Binding("ctrl+n", "open_in_vocab", "In vocab"),
        Binding("escape", "focus_tokens", "To tokens", show=False),
    ]

    add_special: reactive[bool] = reactive(True, init=False)
    parse_special: reactive[bool] = reactive(False, init=False)
    show_whitespace: reactive[bool] = reactive(True, init=False)
    show_pieces: reactive[bool] = reactive(False, init=False)
    show_cuts: reactive[bool] = reactive(False, init=False)
    keep_cr: reactive[bool] = reactive(False, init=False)
    """The app's ``keep_cr_in_pastes``, with a check box here."""

    @dataclass
    class Tokenized(Message):
        """A worker finished tokenizing request ``generation``."""

        generation: int
        layout: TokenLayout | None
        pieces: dict[int, str] | None
        """Display piece per id when pieces are shown instead of ids."""
        seconds: float
        error: str | None = None
        provisional: bool = False
        flowed: tuple[Flow, ...] = ()
        """The id strip's rows, flowed by the worker at the widths it may have (a long text's 3M labels)."""
        rows: Rows | None = None
        """The Tokens panel's rows, wrapped by the worker (a long text's 240k lines)."""

    @dataclass
    class Counted(Message):
        """A worker has the exact ids of request ``generation`` (its layout follows)."""

        generation: int
        ids: np.ndarray

    @dataclass
    class Progress(Message):
        """A worker has tokenized ``fraction`` of request ``generation``'s text."""

        generation: int
        fraction: float

    def __init__(self) -> None:
        super().__init__()
        self._generation = 0
        self._shown_generation = -1
        self._debounce: Timer | None = None
        self._engine = TokenizeEngine()
        self._sent = self.tui.text
        """The text this view last gave the app (its own edits come back through the watcher)."""
        self.cuts = ChunkCuts(self, lambda: self.query_one("#tok-view", TokenView))
        self._confirm: Timer | None = None
        self.provisional_shown = 0
        """How many line-by-line results were drawn (tests check the fast path ran)."""
        self.last_result_at = 0.0
        """perf_counter() when the last result was drawn (benchmarks read it)."""
        self.showing_provisional = False
        """The result drawn last is a line-by-line one, not yet confirmed (benchmarks read it)."""
        self.count_shown_at = 0.0
        """perf_counter() when the last exact count was shown (a long text's comes before its colours)."""
        self._counted_generation = -1
        self._in_flight: tuple[str, tuple[object, ...]] | None = None  # a long text tokenized whole, its toggles
        self.set_reactive(TokenizeScreen.keep_cr, self.tui.keep_cr_in_pastes)

    def compose(self) -> ComposeResult:
        yield InfoBar(self.facts(), self.VIEW)
        with Horizontal(id="tok-main"):
            with Vertical(id="tok-left"):
                yield Editor(
                    self.tui.text, id="tok-input", soft_wrap=True, on_edit=self._text_changed, after_edit=self._edited
                )
                yield TokenView(id="tok-view")
                yield IdStrip(id="tok-ids")
                yield Readout("", id="tok-stats")
            with Vertical(id="tok-side"):
                yield TokenizerStatus(id="tok-status")
                yield TokenDetails("no token selected", id="tok-details")
                for name, label in CHECK_BOXES:
                    yield Checkbox(label, getattr(self, name), id=f"cb-{name}")
        yield Footer()

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """The editor's ~30 keys last, after the view's and the app's (^B ^T ^O ^G ^N, F1-F4):
        the keys panel (F9) lists them in this order (the footer shows none of the editor's)."""
        bindings = super().active_bindings
        own = {k: b for k, b in bindings.items() if not isinstance(b.node, TextArea)}
        return {**own, **{k: b for k, b in bindings.items() if k not in own}}

    def on_mount(self) -> None:
        self.query_one("#tok-details", TokenDetails).border_title = "Token"
        self.query_one("#tok-view", TokenView).border_title = "Tokens"
        self.query_one("#tok-input", TextArea).border_title = "Text"
        self.watch(self.app, "tokenizer", self._tokenizer_changed)
        self.watch(self.app, "vocab_index", self._index_changed, init=False)
        self.watch(self.app, "text", self._shared_text_changed, init=False)
        self.query_one("#tok-input", TextArea).focus()
        apply_pending_tokenize(self)  # the toggles of a session opened with --session

    def _index_changed(self, _value: object = None) -> None:
        # the details gain type, score and merge rank once the index is built
        cursor = self.query_one("#tok-view", TokenView).cursor
        if cursor >= 0:
            self._describe(cursor)

    def _tokenizer_changed(self, _value: object = None) -> None:
        if self.is_mounted:
            self.retokenize()
        else:  # made after the tokenizer was built (the app opened on the Compare view): once mounted
            self.call_after_refresh(self.retokenize)

    def _shared_text_changed(self, text: str) -> None:
        """The app's text was edited elsewhere (the compare view): show it here, now or when shown."""
        if text is not self._sent and self.is_current:
            load_text(self.query_one("#tok-input", Editor), text)

    def on_screen_resume(self) -> None:
        self._shared_text_changed(self.tui.text)

    # --- toggles ------------------------------------------------------------------------------

    # (action_toggle, check box clicks and _sync_checkbox: CheckboxToggles)

    def watch_add_special(self, value: bool) -> None:
        self._sync_checkbox("add_special", value)
        self.retokenize()

    def watch_parse_special(self, value: bool) -> None:
        self._sync_checkbox("parse_special", value)
        self.retokenize()

    def watch_show_pieces(self, value: bool) -> None:
        self._sync_checkbox("show_pieces", value)
        self.retokenize()

    def watch_show_cuts(self, value: bool) -> None:
        self._sync_checkbox("show_cuts", value)
        if not value:
            self.cuts.off()
        elif (tok := self.tui.tokenizer) is not None:  # (else: once it is built, by retokenize)
            self.cuts.request(tok, self.query_one("#tok-input", TextArea).text, self.parse_special, at_once=True)

    def watch_keep_cr(self, value: bool) -> None:
        self._sync_checkbox("keep_cr", value)
        self.tui.keep_cr_in_pastes = value

    def on_cuts_ready(self, message: CutsReady) -> None:
        self.cuts.arrived(message)

    def watch_show_whitespace(self, value: bool) -> None:
        self._sync_checkbox("show_whitespace", value)
        if not self.is_mounted:
            return
        self.query_one("#tok-view", TokenView).show_whitespace = value
        self.set_class(not value, "-hide-whitespace")

    # --- tokenizing ---------------------------------------------------------------------------

    @on(TextArea.Changed, "#tok-input")
    def _changed_message(self) -> None:
        editor = self.query_one("#tok-input", Editor)
        # not for the text the view was made with (its tokenization is under way: a 10 MB one twice)
        if not editor.consume_changed() and editor.text is not self._sent:
            self._text_changed()

    @property
    def spliced_shown(self) -> int:
        """Exact results made by re-tokenizing around an edit (tests check the fast path ran)."""
        return self._engine.spliced

    def _text_changed(self) -> None:
        """The text changed: called from inside the edit (``Editor.on_edit``), before the repaint."""
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        self._sent = self.tui.text = text = self.query_one(
            "#tok-input", TextArea
        ).text  # _sent first: the watcher reads it
        size = len(text)
        if (
            size > DEBOUNCE_CHARS
            and self._engine.chunk_cache(self.tui.tokenizer) is None
            and not self._engine.splices(self.tui.tokenizer)
        ):
            # a long text: wait for a pause in typing (a worker stops between pieces when a newer request comes)
            self._debounce = self.set_timer(DEBOUNCE_S, self.retokenize)
        else:
            self.retokenize()

    def _edited(self) -> None:
        """An edit is done and its tokens are shown (or on their way): draw that frame now."""
        paint_now(self)

    def _stop_confirm(self) -> None:
        if self._confirm is not None:
            self._confirm.stop()
            self._confirm = None

    def retokenize(self) -> None:
        """Start a worker for the current text and toggles (the newest request wins)."""
        if not self.is_mounted:
            return
        tok, text = self.tui.tokenizer, self.query_one("#tok-input", TextArea).text
        asked = (tok, self.add_special, self.parse_special, self.show_pieces)
        if self._in_flight is not None and self._in_flight[0] is text and self._in_flight[1] == asked:
            return  # that very text is being tokenized whole (at start two watchers ask for it)
        self._generation += 1
        if tok is None:
            return
        if self.show_cuts:
            self.cuts.request(tok, text, self.parse_special)
        provisional = len(text) > PROVISIONAL_CHARS and self._engine.chunk_cache(self.tui.tokenizer) is not None
        request = self._request(text, provisional)
        self._stop_confirm()
        if not self._run_now(tok, request):
            self._run(request)

    def _run_exact(self) -> None:
        """Typing paused: tokenize the whole text exactly."""
        self._confirm = None
        self._generation += 1
        self._run(self._request(self.query_one("#tok-input", TextArea).text, provisional=False))

    def _request(self, text: str, provisional: bool) -> TokenizeRequest:
        return TokenizeRequest(
            self._generation, text, self.add_special, self.parse_special, self.show_pieces, provisional
        )

    def _run_now(self, tok: Tokenizer, request: TokenizeRequest) -> bool:
        """Tokenize on the UI thread when that is cheap; False to leave it to a worker.

        Cheap: up to ``SYNC_CHARS`` characters, or a provisional result whose line cache
        lacks at most that many characters (an edit touches one line). Not when a worker
        holds the tokenizer.
        """
        if len(request.text) > SYNC_CHARS and not request.provisional or len(request.text) > WORKER_ONLY_CHARS:
            return False
        if not self.session.lock.acquire(blocking=False):
            return False
        start = time.perf_counter()
        try:
            chunks = None
            if len(request.text) > SYNC_CHARS:
                cache = self._engine.chunk_cache(self.tui.tokenizer)
                if cache is None:
                    return False
                chunks = split_chunks(request.text)
                if cache.missing_chars(chunks, request.parse_special) > SYNC_CHARS:
                    return False
            result = self._engine.layout(tok, request, chunks=chunks)
            if result is None:
                return False
            layout = result[0]
            pieces = self._engine.pieces(tok, layout) if request.show_pieces else None
        except TuiTokError as exc:
            self.on_tokenize_screen_tokenized(self.Tokenized(request.generation, None, None, 0.0, str(exc)))
            return True
        finally:
            self.session.lock.release()
        elapsed = time.perf_counter() - start
        message = self.Tokenized(request.generation, layout, pieces, elapsed, provisional=request.provisional)
        self.on_tokenize_screen_tokenized(message)
        return True

    def _run(self, request: TokenizeRequest) -> None:
        if len(request.text) > WORKER_ONLY_CHARS and not self._engine.splices(self.tui.tokenizer):
            self.tui.text_idle.clear()  # set again when a worker is done (the builds wait meanwhile)
            self._in_flight = (
                request.text,
                (self.tui.tokenizer, request.add_special, request.parse_special, request.show_pieces),
            )
        self._run_worker(
            [request, draw_hint(self.query_one("#tok-ids", IdStrip), self.query_one("#tok-view", TokenView))]
        )

    @work(thread=True, exclusive=True, group="tokenize", description="tokenizing")
    def _run_worker(self, job: list[Any]) -> None:
        """``job``: the request and the id strip's flow hint, taken out at once. A finished Worker keeps
        its arguments, and Textual's workers sit in reference cycles (context variables) that only a full
        garbage collection frees: held directly, every key's request would keep its 10 MB text alive."""
        try:
            self._tokenize(job)
        finally:
            self.tui.note_activity()  # the index and lint builds wait for a pause after it (``ui/builds.py``)
            self.tui.text_idle.set()  # the index and lint builds may go on (``_run``)

    def _tokenize(self, job: list[Any]) -> None:
        request: TokenizeRequest = job[0]
        hint: DrawHint = job[1]
        job.clear()
        worker = get_current_worker()
        tok = self.tui.tokenizer
        if tok is None:
            return
        start = time.perf_counter()
        big = len(request.text) > WORKER_ONLY_CHARS
        generation, post = request.generation, self.post_message
        try:
            with self.session.lock:
                if worker.is_cancelled:
                    return
                result = self._engine.layout(
                    tok,
                    request,
                    stop=lambda: worker.is_cancelled,
                    progress=every(PROGRESS_S, lambda fraction: post(self.Progress(generation, fraction)))
                    if big
                    else None,
                    counted=(lambda ids: post(self.Counted(generation, ids))) if big else None,
                )
                if result is None:
                    return
                layout, provisional = result
                pieces = self._engine.pieces(tok, layout) if request.show_pieces else None
        except TuiTokError as exc:
            self.post_message(self.Tokenized(request.generation, None, None, 0.0, str(exc)))
            return
        flowed, rows = drawn(layout, pieces, hint) if big else ((), None)  # else the UI thread's work (tokenize_draw)
        if big and layout.edit is None:  # a whole-text layout: the first key's blocks on mapped pages
            warm_for_next_key(layout)  # before it is shown (the first key may come at once)
        if not worker.is_cancelled:
            elapsed = time.perf_counter() - start
            self.post_message(
                self.Tokenized(generation, layout, pieces, elapsed, provisional=provisional, flowed=flowed, rows=rows)
            )

    def on_tokenize_screen_counted(self, message: Counted) -> None:
        """The exact count (and ids) of a long text, shown while its colours are laid out."""
        if message.generation != self._generation:
            return
        self.tui.ids = TokenIds(message.ids)
        self.count_shown_at = time.perf_counter()
        self._counted_generation = message.generation
        self.query_one("#tok-stats", Readout).show(f"{len(message.ids):,} tokens · {self._size_note()} · colouring…")

    def on_tokenize_screen_progress(self, message: Progress) -> None:
        if message.generation == self._generation:
            self.query_one("#tok-stats", Readout).show(f"tokenizing… {message.fraction:.0%} of {self._size_note()}")

    def _size_note(self) -> str:
        return f"{len(self.query_one('#tok-input', TextArea).text):,} characters"

    def on_tokenize_screen_tokenized(self, message: Tokenized) -> None:
        if message.generation != self._generation:
            return  # stale: the text or a toggle changed since
        self._in_flight = None
        stats = self.query_one("#tok-stats", Readout)
        if message.layout is None:
            stats.show(f"cannot tokenize: {message.error}")
            stats.add_class("-error")
            return
        stats.remove_class("-error")
        layout = message.layout
        view = self.query_one("#tok-view", TokenView)
        view.show(layout, message.rows)
        self.query_one("#tok-ids", IdStrip).show(
            layout.ids, layout.kinds, phases=layout.phases, pieces=message.pieces, flowed=message.flowed
        )
        summary = text_stats(layout.text, n_tokens=layout.n_tokens, n_bytes=layout.n_bytes).summary()
        timing = f" · {message.seconds * 1000:.1f} ms" if self.tui.show_timings else ""
        pasted = self.query_one("#tok-input", Editor).paste_note  # "3 line breaks pasted as LF"
        note = (f"{pasted} · " if pasted else "") + ("provisional (line by line) · " if message.provisional else "")
        stats.show(note + summary + timing)
        stats.set_class(message.provisional, "-provisional")
        self.showing_provisional = message.provisional
        self._stop_confirm()
        if message.provisional:
            self.provisional_shown += 1
            # confirmed once typing pauses (a result that is exact already, e.g. after a paste, is not)
            self._confirm = self.set_timer(CONFIRM_S, self._run_exact)
        else:
            self.tui.ids = TokenIds(layout.ids)
        self._shown_generation = message.generation
        self.last_result_at = time.perf_counter()
        if not message.provisional and self._counted_generation != message.generation:
            self.count_shown_at = self.last_result_at
        if not (view.has_focus and view.cursor >= 0):  # follow the editor's cursor
            text_area = self.query_one("#tok-input", TextArea)
            view.select_char(cast(Document, text_area.document).get_index_from_location(text_area.selection.end))
        if view.cursor >= 0:
            # now, not on TokenView.Selected: that arrives after this frame and would draw another
            self.query_one("#tok-ids", IdStrip).cursor = view.cursor
            self._describe(view.cursor)
        else:  # no token left (the text was cleared): the panel must not show the last one
            self.query_one("#tok-details", TokenDetails).clear_rows()

    def explain_selection(self) -> None:
        """F8: open the Explain view on the selected token (``ui/screens/explain.py``)."""
        from tui_tok.ui.screens.explain import request_explanation

        view = self.query_one("#tok-view", TokenView)
        text = view.token_layout.text or self.query_one("#tok-input", TextArea).text
        request_explanation(self.app, text, token_byte_offset(view.token_layout, view.cursor), self.parse_special)

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Toggle add special (BOS/EOS)", "ctrl+b", lambda: self.action_toggle("add_special"))
        yield SystemCommand("Toggle parse special", "ctrl+t", lambda: self.action_toggle("parse_special"))
        yield SystemCommand("Toggle visible whitespace", "ctrl+o", lambda: self.action_toggle("show_whitespace"))
        yield SystemCommand("Toggle ids / pieces", "ctrl+g", lambda: self.action_toggle("show_pieces"))
        yield SystemCommand("Toggle chunk cuts (pre-tokenizer)", "ctrl+r", lambda: self.action_toggle("show_cuts"))
        yield SystemCommand(
            "Toggle keep CR in pastes", "a pasted CR stays CR, not LF", lambda: self.action_toggle("keep_cr")
        )
        yield SystemCommand("Show selected token in vocabulary", "ctrl+n", self.action_open_in_vocab)
