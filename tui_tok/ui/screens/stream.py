"""The stream view: replay decoding of the tokenize view's ids one token at a time.

Shows the text emitted so far, the current token and the bytes the streaming decoder holds
back while a UTF-8 character is incomplete. The replay is computed once per ids (in a
worker) by ``explore.stream.replay``; stepping only moves an index.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from tui_tok.explore.counts import counted
from tui_tok.explore.display import NULL_PIECE, TAB_COLUMNS, display_bytes, hex_bytes, visible_text
from tui_tok.explore.stream import StreamTrace, describe_pending, replay
from tui_tok.explore.visible import visible
from tui_tok.ui.screens.base import ViewScreen
from tui_tok.ui.widgets.footer import Footer  # fitted to the width: F1-F9 at 80 columns
from tui_tok.ui.widgets.info_bar import InfoBar
from tui_tok.ui.widgets.readout import Readout
from tui_tok.ui.widgets.tokenizer_status import TokenizerStatus

SPEEDS = (1, 2, 5, 10, 20, 50, 100, 500)
"""Tokens per second the player can run at."""

TAIL_CHARS = 4000
"""Only the end of a long emitted text is drawn."""


class StreamScreen(ViewScreen):
    """Streaming decode, step by step."""

    VIEW = "Stream"
    BINDINGS = [
        Binding("space", "play", "Play/pause"),
        Binding("right,l", "step(1)", "Step"),
        Binding("left,h", "step(-1)", "Back"),
        Binding("home", "goto(-1)", "Start", show=False),
        Binding("end", "goto_end", "End", show=False),
        Binding("plus,equals_sign", "speed(1)", "Faster"),
        Binding("minus", "speed(-1)", "Slower"),
    ]

    step: reactive[int] = reactive(-1)
    """Tokens pushed so far minus one (-1: nothing yet)."""
    playing: reactive[bool] = reactive(False)
    speed: reactive[int] = reactive(2)
    """Index into ``SPEEDS``."""

    @dataclass
    class Replayed(Message):
        trace: StreamTrace

    def __init__(self) -> None:
        super().__init__()
        self.trace: StreamTrace | None = None
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield InfoBar(self.facts(), self.VIEW)
        with Vertical(id="stream-main"):
            yield TokenizerStatus(id="stream-status")
            # not focusable: its arrow keys would shadow step / back
            with VerticalScroll(id="stream-text-box", can_focus=False):
                yield Static("", id="stream-text")
            yield Readout("", id="stream-token")
            yield Readout("", id="stream-pending")
            yield Readout("", id="stream-player")
        yield Footer()

    def on_mount(self) -> None:
        box = self.query_one("#stream-text-box", VerticalScroll)
        box.border_title = "Emitted text"
        self.watch(self.app, "ids", self._ids_changed)
        self.watch(self.app, "tokenizer", self._ids_changed)

    def on_screen_resume(self) -> None:
        self._ids_changed()

    def _ids_changed(self, _value: object = None) -> None:
        ids = self.tui.ids
        tok = self.tui.tokenizer
        if tok is None or not self.is_current or (self.trace is not None and self.trace.ids == ids):
            return  # replay only what is on screen: a hidden replay would compete with typing
        self._replay(ids)

    @work(thread=True, exclusive=True, group="replay", description="replaying the stream")
    def _replay(self, ids: Sequence[int]) -> None:
        tok = self.tui.tokenizer
        if tok is None:
            return
        with self.session.lock:
            trace = replay(ids, tok.stream_decoder(), piece_of=tok.token_to_piece)
        self.post_message(self.Replayed(trace))

    def on_stream_screen_replayed(self, message: Replayed) -> None:
        if message.trace.ids != self.tui.ids:
            return
        self.trace = message.trace
        self.playing = False
        self.step = -1
        self.mutate_reactive(StreamScreen.step)

    # --- player -------------------------------------------------------------------------------

    def action_play(self) -> None:
        if self.trace is not None and self.step >= len(self.trace) - 1:
            self.step = -1
        self.playing = not self.playing

    def watch_playing(self, playing: bool) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if playing:
            self._timer = self.set_interval(1 / SPEEDS[self.speed], self._tick)
        self.set_class(playing, "-playing")
        self._show_player()

    def watch_speed(self) -> None:
        if self.playing:
            self.watch_playing(True)
        self._show_player()

    def _tick(self) -> None:
        if self.trace is None or self.step >= len(self.trace) - 1:
            self.playing = False
            return
        self.step += 1

    def action_step(self, delta: int) -> None:
        self.playing = False
        if self.trace is not None:
            self.step = min(max(-1, self.step + delta), len(self.trace) - 1)

    def action_goto(self, step: int) -> None:
        self.playing = False
        self.step = step

    def action_goto_end(self) -> None:
        if self.trace is not None:
            self.action_goto(len(self.trace) - 1)

    def action_speed(self, delta: int) -> None:
        self.speed = min(max(0, self.speed + delta), len(SPEEDS) - 1)

    def watch_step(self, step: int) -> None:
        trace = self.trace
        if trace is None:
            return
        shown = trace.text_after(step)
        emitted = trace.emitted[step] if step >= 0 else ""
        before = shown[: len(shown) - len(emitted)]
        if len(before) > TAIL_CHARS:
            before = "…" + before[-TAIL_CHARS:]
        # decoded text: a BOS text or a piece may hold ESC, drawn visibly (lines kept)
        text = Text(visible(before, lines=True))
        text.append(visible(emitted, lines=True), style="reverse")
        if step == len(trace) - 1 and trace.flushed:
            text.append(visible(trace.flushed, lines=True), style="bold red")
        text.expand_tabs(TAB_COLUMNS)  # a tab as wide as in the editor (Textual would take 8)
        self.query_one("#stream-text", Static).update(text)
        self.query_one("#stream-text-box", VerticalScroll).scroll_end(animate=False)
        token = self.query_one("#stream-token", Readout)
        pending = self.query_one("#stream-pending", Readout)
        if step < 0:
            token.show(Text(f"{counted(len(trace), 'token')} to replay · press space to play, → to step"))
            pending.show(Text(describe_pending(b"")))
            self.set_class(False, "-holding")
        else:
            piece = trace.pieces[step]
            shown = display_bytes(piece) if trace.ids[step] >= 0 else NULL_PIECE  # the null id: no piece
            token.show(
                Text(
                    visible(
                        f"token {step + 1:,}/{len(trace):,} · id {trace.ids[step]} · piece “{shown}” · "
                        f"bytes {hex_bytes(piece) or '(none)'} · emitted “{visible_text(emitted)}”"
                    )
                )
            )
            held = trace.pending[step]
            pending.show(Text(describe_pending(held)))
            self.set_class(bool(held), "-holding")
        self._show_player()

    def _show_player(self) -> None:
        if not self.is_mounted:
            return
        state = "playing" if self.playing else "paused"
        total = len(self.trace) if self.trace is not None else 0
        self.query_one("#stream-player", Readout).show(
            f"{state} · {SPEEDS[self.speed]} tokens/s · step {self.step + 1:,}/{total:,}"
        )

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Stream: play / pause", "space", self.action_play)
        yield SystemCommand("Stream: step forward", "right", lambda: self.action_step(1))
        yield SystemCommand("Stream: step back", "left", lambda: self.action_step(-1))
        yield SystemCommand("Stream: faster", "+", lambda: self.action_speed(1))
        yield SystemCommand("Stream: slower", "-", lambda: self.action_speed(-1))
