"""Chunk cuts over the Tokens view (``^R``): where the pre-tokenizer cut the text, from the engine.

The cuts are the chunk and fragment starts of the engine's own explanation
(``tokenizer.explain``, the splitter that produced the ids; ``explore.chunk_marks``). Nothing
here runs while the toggle is off. While it is on, each change of the text asks for the cuts
of the new text ``PAUSE_S`` after the last change, in a thread worker: explaining costs far
more per character than tokenizing and holds the session lock (a keystroke's
tokenization waits for it), so it waits for a pause in typing, and a text over ``MAX_CHARS``
is not explained at all (the Tokens panel's title says so). Until new cuts arrive the view
carries the last ones over each edit (``TokenView.show``), so they do not flicker off.

A result is drawn when it was computed with the tokenizer and ``parse special`` still in use,
even if the text changed meanwhile (it is carried onto the new text, and the newer cuts follow).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from rich.text import Text
from textual.message import Message
from textual.timer import Timer
from textual.worker import get_current_worker

from tui_tok.errors import TuiTokError
from tui_tok.explore.chunk_marks import ChunkMarks, chunk_marks
from tui_tok.explore.visible import visible
from tui_tok.tokenizer.explain import explain
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.ui.screens.base import ViewScreen
from tui_tok.ui.widgets.token_view import TokenView

PAUSE_S = 0.2
"""Seconds without a change of the text before its cuts are computed."""
MAX_CHARS = 50_000
"""Longer texts are not explained (they would hold the tokenizer's lock for a noticeable pause)."""
TITLE = "Tokens"


@dataclass(frozen=True, slots=True)
class CutsRequest:
    text: str
    parse_special: bool
    tokenizer: Tokenizer


@dataclass
class CutsReady(Message):
    """A worker found the chunk cuts of ``request.text`` (or could not: ``error``)."""

    request: CutsRequest
    marks: ChunkMarks | None
    error: str | None = None


class ChunkCuts:
    """Computes and hands the Tokens view its chunk cuts while the toggle is on."""

    def __init__(self, screen: ViewScreen, view: Callable[[], TokenView]) -> None:
        self._screen = screen
        self._view = view
        self._timer: Timer | None = None
        self._current: tuple[Tokenizer, bool] | None = None
        """The tokenizer and parse-special flag cuts are wanted for (None: the toggle is off)."""
        self.computed = 0
        """How many explanations arrived (tests check the worker ran)."""

    def request(self, tok: Tokenizer, text: str, parse_special: bool, *, at_once: bool = False) -> None:
        """Cuts of ``text`` are wanted: compute them after a pause in typing (``at_once``: now)."""
        self._stop_timer()
        if self._current != (tok, parse_special):
            self._current = (tok, parse_special)
            self._view().show_cuts(None)  # cuts of another tokenizer or partition: not carried
        if len(text) > MAX_CHARS:
            self._view().show_cuts(None)
            self._title(f"{TITLE} · no chunk cuts: over {MAX_CHARS:,} characters")
            return
        request = CutsRequest(text, parse_special, tok)
        if at_once:
            self._start(request)
        else:
            self._timer = self._screen.set_timer(PAUSE_S, partial(self._start, request))

    def off(self) -> None:
        """The toggle went off: forget the cuts and any pending computation."""
        self._stop_timer()
        self._current = None
        self._view().show_cuts(None)
        self._title(TITLE)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _start(self, request: CutsRequest) -> None:
        self._timer = None
        work = partial(self._compute, request)
        self._screen.run_worker(work, thread=True, exclusive=True, group="cuts", description="finding chunk cuts")

    def _compute(self, request: CutsRequest) -> None:
        worker = get_current_worker()
        try:
            with self._screen.session.lock:
                if worker.is_cancelled:
                    return
                expl = explain(request.tokenizer, request.text, parse_special=request.parse_special)
            marks = chunk_marks(expl, request.text)
        except TuiTokError as exc:
            self._screen.post_message(CutsReady(request, None, str(exc)))
            return
        except Exception as exc:  # a bug in the engine: say so, do not take the app down
            self._screen.post_message(CutsReady(request, None, f"internal error: {type(exc).__name__}: {exc}"))
            return
        if not worker.is_cancelled:
            self._screen.post_message(CutsReady(request, marks))

    def arrived(self, message: CutsReady) -> None:
        """Draw a worker's cuts if they are still wanted."""
        request = message.request
        if self._current != (request.tokenizer, request.parse_special):
            return  # turned off, or another tokenizer / partition since
        self.computed += 1
        if message.marks is None:
            self._view().show_cuts(None)
            self._title(f"{TITLE} · no chunk cuts: {message.error}")
            return
        self._view().show_cuts(message.marks)
        self._title(f"{TITLE} · cuts: underline flips")

    def _title(self, title: str) -> None:
        view = self._view()
        shown = Text(visible(title))  # an error may quote the file's regex: its [ ] are not markup
        if view.border_title != shown.markup:  # the title reads back as markup
            view.border_title = shown
