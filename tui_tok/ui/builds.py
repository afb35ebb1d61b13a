"""``BackgroundBuilds``: the app's background workers (the tokenizer, then the vocabulary index, then
the lint), one after the other, and how they keep out of the way of typing.

The tokenizer is built first, at once: every view waits for it. The index and the lint are
extras (the Token panel's type, score and rank; the header's lint verdict), and they hold the
interpreter while they run: with a long text (``QUIET_CHARS``), a key typed meanwhile took 2-10x
its time (a 10 MB text's first key: ~1 s, ``python -m benchmarks big_text``). So with a long text
they wait, before each step (the index, the collection before the heap is frozen, each lint
check), until a whole tokenization of it is done (``text_idle``) and then until nobody has typed
for ``QUIET_S`` (``note_activity``: every key and paste, and a long text's result shown).
A key typed during a step shares the interpreter with that one step only.
"""

from __future__ import annotations

import gc
import threading
import time
from typing import TYPE_CHECKING, Any

from textual import events, work

from tui_tok.ui.messages import LintDone, TokenizerLoaded, VocabIndexBuilt

if TYPE_CHECKING:
    from tui_tok.explore.lint import LintReport
    from tui_tok.explore.vocab_index import VocabIndex
    from tui_tok.tokenizer.tokenizer import Tokenizer
    from tui_tok.ui.session import Session

TEXT_WAIT_S = 60.0
"""The longest a build waits for a long text's tokenization (``text_idle``)."""
QUIET_S = 0.5
"""With a long text, the builds' steps wait until nobody has typed for this long."""
QUIET_LONGEST_S = 30.0
"""The longest one step waits for a pause in typing (it then runs beside the keys)."""
QUIET_CHARS = 200_000
"""From this many characters of text the builds wait for pauses in typing (a key in a shorter
text costs milliseconds, beside a build or not)."""


class BackgroundBuilds:
    """Mixin for the app: the tokenizer, index and lint workers, and the typing they wait for."""

    session: Session
    text: str
    current_mode: str
    tokenizer: Tokenizer | None
    tokenizer_error: str | None
    vocab_index: VocabIndex | None
    lint_report: LintReport | None
    tokenizer_ready_at: float | None
    text_idle: threading.Event
    """Clear while the tokenize view tokenizes a long text whole: the index and lint wait (``wait_quiet``)."""
    _active_at = 0.0
    """``time.monotonic()`` of the last key, paste or long result (``note_activity``)."""

    if TYPE_CHECKING:

        def post_message(self, message: Any) -> bool: ...

    def note_activity(self) -> None:
        """Someone typed (or a long text's result was just shown): the builds' next step waits."""
        self._active_at = time.monotonic()

    def activity_from(self, event: events.Event) -> None:
        """Called with every event the app sees: keys and pastes are typing."""
        if isinstance(event, (events.Key, events.Paste)):
            self.note_activity()

    def wait_quiet(self) -> None:
        """In a build's worker, before each step: wait (``TEXT_WAIT_S`` at most) while a long text is
        tokenized whole (``text_idle``), then, with a long text, for a pause in typing (module doc)."""
        self.text_idle.wait(TEXT_WAIT_S)
        if len(self.text) < QUIET_CHARS:
            return
        give_up = time.monotonic() + QUIET_LONGEST_S
        while (now := time.monotonic()) < give_up:
            left = self._active_at + QUIET_S - now
            if left <= 0 and self.text_idle.is_set():
                return
            time.sleep(max(left, 0.02))

    @work(thread=True, exclusive=True, group="load", description="building the tokenizer")
    def build_tokenizer(self) -> None:
        from tui_tok.errors import TuiTokError
        from tui_tok.loader import load_tokenizer

        start = time.perf_counter()
        try:
            with self.session.lock:
                tok = load_tokenizer(self.session.gguf)
                # without BOS/EOS: a vocab that wants one it lacks (llama.cpp asserts) still
                # tokenizes with add special off; the tokenize view shows that error itself
                tok.tokenize("warm up: Hello 1, 日本 🙂\n", add_special=False, parse_special=True)
        except TuiTokError as exc:
            self.post_message(TokenizerLoaded(None, str(exc), time.perf_counter() - start))
        except Exception as exc:  # a bug in the engine: still show the file
            self.post_message(TokenizerLoaded(None, f"internal error: {type(exc).__name__}: {exc}", 0.0))
        else:
            self.post_message(TokenizerLoaded(tok, None, time.perf_counter() - start))

    @work(thread=True, exclusive=True, group="index", description="indexing the vocabulary")
    def build_index(self) -> None:
        from tui_tok.explore.vocab_index import build_vocab_index

        self.wait_quiet()
        start = time.perf_counter()
        index = build_vocab_index(self.session.metadata)
        seconds = time.perf_counter() - start
        self.wait_quiet()
        gc.collect()  # here, not on the UI thread: what is frozen next is what is alive (``freeze_heap``)
        self.post_message(VocabIndexBuilt(index, seconds))

    def on_tokenizer_loaded(self, message: TokenizerLoaded) -> None:
        from tui_tok.ui.screens.tokenize import WORKER_ONLY_CHARS

        if message.tokenizer is not None and len(self.text) > WORKER_ONLY_CHARS and self.current_mode == "tokenize":
            self.text_idle.clear()  # the tokenize view's worker sets it again (``wait_quiet``)
        self.tokenizer_ready_at = time.perf_counter()
        self.tokenizer_error = message.error
        self.tokenizer = message.tokenizer
        if self.text_idle.is_set():  # else once the long text is tokenized (the index waits for it, then freezes)
            freeze_heap()
        self.build_index()  # one build at a time: two threads would starve the UI of the GIL

    def on_vocab_index_built(self, message: VocabIndexBuilt) -> None:
        self.vocab_index = message.index
        freeze_heap(collected=True)
        self.run_lint()  # last: the views a user looks at first are ready before it

    @work(thread=True, exclusive=True, group="lint", description="linting the tokenizer")
    def run_lint(self) -> None:
        from tui_tok.explore.lint import lint_gguf
        from tui_tok.ui.heap import warm_again

        # the lock only around each tokenizer call: typing in the tokenize view waits for one call, not the lint
        report = lint_gguf(self.session.gguf, tokenizer=self.tokenizer, lock=self.session.lock, pause=self.wait_quiet)
        self.wait_quiet()
        warm_again()  # the builds took freed blocks: the next key's columns on mapped pages again (``ui/heap.py``)
        self.post_message(LintDone(report))

    def on_lint_done(self, message: LintDone) -> None:
        self.lint_report = message.report


def freeze_heap(*, collected: bool = False) -> None:
    """Exempt what is alive now (the vocabulary, tables, widgets) from the garbage collector.

    A full collection walks every tracked object: with a loaded vocabulary it came every few
    dozen keystrokes and was the slowest keystroke. The vocabulary and index live
    as long as the app, so freezing them loses nothing; later garbage is collected as usual.
    ``collected``: a worker has just collected (``build_index``), so the UI thread only freezes.
    """
    if not collected:
        gc.collect()
    gc.freeze()
