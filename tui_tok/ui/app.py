"""``TuiTokApp``: six views of one GGUF file, switched with F1-F6 (or 1-6 outside text boxes).

The chosen colour theme is remembered between runs (``ui/settings.py``).
The file is read before the app starts (a file that is not GGUF fails there, with one line).
The tokenizer, the vocabulary index and the lint report are built in background workers, one
after the other; views watch ``tokenizer`` / ``vocab_index`` / ``lint_report`` and fill in when
they arrive.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.filter import LineFilter
from textual.reactive import var
from textual.screen import Screen

from tui_tok.explore.lint import LintReport
from tui_tok.explore.session_file import SessionState
from tui_tok.explore.visible import visible
from tui_tok.explore.vocab_index import VocabIndex, build_vocab_index
from tui_tok.gguf import GGUFFile, read_gguf
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.ui.drop_controls import DROP_CONTROLS
from tui_tok.ui.gc_pacing import GcPacer
from tui_tok.ui.host import ExplorerHost
from tui_tok.ui.messages import LintDone, TokenizerLoaded, VocabIndexBuilt
from tui_tok.ui.screens.chat import ChatScreen
from tui_tok.ui.screens.compare import CompareScreen
from tui_tok.ui.screens.diagnostics import DiagnosticsScreen
from tui_tok.ui.screens.explain import ExplainScreen
from tui_tok.ui.screens.session_io import BINDINGS as DATA_BINDINGS
from tui_tok.ui.model_switch import BINDINGS as SWITCH_BINDINGS, Relaunch
from tui_tok.ui.screens.metadata import MetadataScreen
from tui_tok.ui.screens.stream import StreamScreen
from tui_tok.ui.screens.tokenize import TokenizeScreen
from tui_tok.ui.screens.vocab import VocabScreen
from tui_tok.ui.session import Session
from tui_tok.ui.settings import load_settings, save_setting

SAMPLE_TEXT = "Hello world! The tokenizer splits text into pieces.\n日本語 🙂 naïve café\n\tx = 42  # tab, spaces"
"""What the tokenize view shows first."""

VIEWS = (("tokenize", "Tokenize"), ("stream", "Stream"), ("vocab", "Vocab"), ("metadata", "Metadata"), ("chat", "Chat"),
         ("diagnostics", "Lint"))  # fmt: skip


class TuiTokApp(App[int]):
    """Explore the tokenizer of one GGUF file."""

    CSS_PATH = "app.tcss"
    TITLE = "tui-tok"
    MODES = {"tokenize": TokenizeScreen, "stream": StreamScreen, "vocab": VocabScreen, "metadata": MetadataScreen,
             "chat": ChatScreen, "diagnostics": DiagnosticsScreen, "compare": CompareScreen,
             "explain": ExplainScreen}  # fmt: skip
    DEFAULT_MODE = "tokenize"
    BINDINGS = [
        *(Binding(f"f{i}", f"switch_mode('{mode}')", title, priority=True) for i, (mode, title) in enumerate(VIEWS, 1)),
        *(Binding(str(i), f"switch_mode('{mode}')", title, show=False) for i, (mode, title) in enumerate(VIEWS, 1)),
        # F5/F6: chat, diagnostics; the footer names F7 only with a --compare file (__init__)
        Binding("f7", "switch_mode('compare')", "Compare", show=False, priority=True),
        Binding("f8", "explain", "Explain", priority=True),
        # the footer names F9, which works everywhere: '?' types into text boxes
        Binding("f9", "toggle_keys", "Keys", priority=True),
        Binding("question_mark", "toggle_keys", "Keys", show=False),
        Binding("q", "quit", "Quit", show=False),
        # outside text boxes (they copy their selection): copy the view's ids, prompt, finding, diff or trace
        Binding("ctrl+c", "copy_view", "Copy", show=False),
        *DATA_BINDINGS,  # alt+s/l/o/w/e/p: sessions, text files, exports (ui/screens/session_io.py)
        *SWITCH_BINDINGS,  # alt+m/c: open another model, compare with one (ui/model_switch.py)
    ]

    tokenizer: var[Tokenizer | None] = var(None)
    """The built tokenizer (None while building or when it cannot be built)."""
    tokenizer_error: var[str | None] = var(None)
    """Why the tokenizer could not be built."""
    vocab_index: var[VocabIndex | None] = var(None)
    """Searchable vocabulary, built from metadata alone."""
    lint_report: var[LintReport | None] = var(None)
    """The lint findings (None until the lint worker is done)."""
    ids: var[Sequence[int]] = var(())
    """Ids of the text in the tokenize view (the stream view replays them): a tuple, or
    ``TokenIds`` (an array read as one) from the tokenize view."""
    text: var[str] = var("")
    """The text: what the tokenize view shows, also the compare view's (each edits it; ``ui/host.py``)."""
    pending_session: SessionState | None = None
    """A loaded session whose parts the views take when they mount (``ui/session_io.py``)."""
    compare_source: str | None = None
    """The compare file as it was named (saved in sessions); None: its path."""
    relaunch: Relaunch | None = None
    """Set when the app exits to open another model (``run_app`` starts the next one)."""

    def __init__(
        self, gguf: GGUFFile, *, text: str = SAMPLE_TEXT, load_tokenizer: bool = True, show_timings: bool = True,
        compare: GGUFFile | None = None, label: str | None = None, compare_label: str | None = None,
    ) -> None:
        super().__init__()
        self.compare_gguf = compare
        """The second file of ``--compare`` (the compare view, F7)."""
        self.compare_label = compare_label
        """The name to show for it (None: its file name)."""
        if compare is not None:  # F7 in the footer (without a file it still explains how to start)
            bindings = self._bindings.key_to_bindings
            bindings["f7"] = [replace(b, show=True) for b in bindings["f7"]]
        self.show_timings = show_timings
        """Show how long tokenizing and searching took (off for deterministic snapshots)."""
        self.session = Session(gguf, label=label)
        self.initial_text = text
        self.set_reactive(TuiTokApp.text, text)
        self._load = load_tokenizer
        self.sub_title = visible(self.session.name)
        self.first_paint_at: float | None = None
        """perf_counter() after the first screen was painted (for benchmarks)."""
        self.tokenizer_ready_at: float | None = None
        """perf_counter() when the built tokenizer (or its error) reached the app (for benchmarks)."""
        self.pending_vocab_token: int | None = None
        """A token the vocabulary view should put under its cursor when it next shows."""
        self.pending_metadata_key: tuple[str, int | None] | None = None
        """A metadata key (and template line) the metadata view should show when it next shows."""
        self.gc_pacer = GcPacer(self)
        """Collects garbage between frames (automatic collection is off while the app runs)."""

    def on_mount(self) -> None:
        theme = load_settings().get("theme")
        if isinstance(theme, str) and theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, lambda theme: save_setting("theme", theme.name))
        self.gc_pacer.start()
        if self.compare_gguf is not None:  # `--compare B.gguf`: open on the comparison
            self.switch_mode("compare")
        # after the first paint: the builds hold the GIL for seconds and would delay it
        self.call_after_refresh(self._start_builds)

    def on_unmount(self) -> None:
        self.gc_pacer.stop()

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then ``DropControls``: no control from the file reaches the terminal."""
        return [*super().get_line_filters(), DROP_CONTROLS]

    def _start_builds(self) -> None:
        self.first_paint_at = time.perf_counter()
        if self._load:
            self.build_tokenizer()
        else:
            self.build_index()

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
        start = time.perf_counter()
        index = build_vocab_index(self.session.metadata)
        self.post_message(VocabIndexBuilt(index, time.perf_counter() - start))

    def on_tokenizer_loaded(self, message: TokenizerLoaded) -> None:
        self.tokenizer_ready_at = time.perf_counter()
        self.tokenizer_error = message.error
        self.tokenizer = message.tokenizer
        _freeze_heap()
        self.build_index()  # one build at a time: two threads would starve the UI of the GIL

    def on_vocab_index_built(self, message: VocabIndexBuilt) -> None:
        self.vocab_index = message.index
        _freeze_heap()
        self.run_lint()  # last: the views a user looks at first are ready before it

    @work(thread=True, exclusive=True, group="lint", description="linting the tokenizer")
    def run_lint(self) -> None:
        from tui_tok.explore.lint import lint_gguf

        # the lock only around each tokenizer call: typing in the tokenize view waits for one call, not the lint
        report = lint_gguf(self.session.gguf, tokenizer=self.tokenizer, lock=self.session.lock)
        self.post_message(LintDone(report))

    def on_lint_done(self, message: LintDone) -> None:
        self.lint_report = message.report

    def action_toggle_keys(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_explain(self) -> None:
        """F8: explain the token selected in the current view (the Tokenize view knows it)."""
        explain_selection = getattr(self.screen, "explain_selection", None)
        if explain_selection is not None:
            explain_selection()
        else:
            self.switch_mode("explain")

    def action_copy_view(self) -> None:
        """ctrl+c: copy what the current view shows (``ui/clipboard.py``)."""
        from tui_tok.ui.clipboard import copy_main

        copy_main(self.screen)

    def action_data(self, action: str) -> None:
        """alt+s/l/o/w/e/p: ask for a path, then save, load, open or export (``ui/screens/session_io.py``)."""
        from tui_tok.ui.screens import session_io

        if not isinstance(self.screen, session_io.PathPrompt):
            session_io.run(self, action)

    def action_switch_model(self, compare: bool) -> None:
        """alt+m / alt+c: pick another model, or the one to compare with (``ui/model_switch.py``)."""
        from tui_tok.ui.model_switch import choose_model

        choose_model(self, compare=compare)

    def show_token_in_vocab(self, token_id: int) -> None:
        """Switch to the vocabulary with ``token_id`` under the cursor."""
        self.pending_vocab_token = token_id
        self.switch_mode("vocab")

    def show_key_in_metadata(self, key: str, line: int | None = None) -> None:
        """Switch to the metadata view with ``key`` highlighted (and its value scrolled to ``line``)."""
        self.pending_metadata_key = (key, line)
        self.switch_mode("metadata")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for i, (mode, title) in enumerate(VIEWS, 1):
            yield SystemCommand(f"View: {title}", f"Switch to the {title.lower()} view (F{i})", lambda m=mode: self.switch_mode(m))
        yield SystemCommand("View: Compare", "Compare with the --compare file (F7)", lambda: self.switch_mode("compare"))
        commands = getattr(screen, "palette_commands", None)
        if commands is not None:
            yield from commands()
        from tui_tok.ui.clipboard import copy_commands
        from tui_tok.ui.screens.session_io import palette_commands

        from tui_tok.ui.model_switch import palette_commands as switch_commands

        yield from copy_commands(screen)
        yield from palette_commands(self)
        yield from switch_commands(self)


def _freeze_heap() -> None:
    """Exempt what is alive now (the vocabulary, tables, widgets) from the garbage collector.

    A full collection walks every tracked object: with a loaded vocabulary that took ~80 ms,
    about once per 15 keystrokes, and was the slowest keystroke. The vocabulary and index live
    as long as the app, so freezing them loses nothing; later garbage is collected as usual.
    """
    gc.collect()
    gc.freeze()


def open_model(model_path: str | Path) -> GGUFFile:
    """Read ``model_path`` as the explorer does: with the merges' text kept (``Vocab.merges_text``),
    which the BPE encoder searches and cuts instead of joining 150k-515k strings again."""
    return read_gguf(model_path, texts=("tokenizer.ggml.merges",))


def run_app(
    model: str | GGUFFile, *, text: str | None = None, compare: str | GGUFFile | None = None,
    label: str | None = None, compare_label: str | None = None, session: SessionState | None = None,
) -> int:
    """Open ``model`` (a file read already, or a path) in the explorer, on ``text`` when given;
    ``compare``: a second file for the compare view, which then opens first. ``label``/
    ``compare_label``: the names to show instead of the file names; ``session``: a session file's
    state to reopen (``--session``). A file that is not GGUF raises before the UI starts."""
    from tui_tok.ui.fast_paste import use_bulk_paste
    from tui_tok.ui.lenient_input import accept_invalid_utf8

    accept_invalid_utf8()
    use_bulk_paste()
    first = model if isinstance(model, GGUFFile) else open_model(model)
    second = compare if compare is None or isinstance(compare, GGUFFile) else open_model(compare)
    app = TuiTokApp(first, text=SAMPLE_TEXT if text is None else text, compare=second, label=label,
                    compare_label=compare_label)  # fmt: skip
    if session is not None:  # the views take their parts when they mount
        app.pending_session = session
    result = app.run()
    while app.relaunch is not None:  # "Open model…" / "Compare with…": the same state on the new file(s)
        app = relaunched_app(app.relaunch)
        result = app.run()
    return int(result or 0)


def relaunched_app(target: Relaunch) -> TuiTokApp:
    """The explorer on ``target``'s model(s), taking its text, toggles and conversation."""
    app = TuiTokApp(target.gguf, text=target.session.text, compare=target.compare, label=target.label,
                    compare_label=target.compare_label)  # fmt: skip
    app.pending_session = target.session
    return app


def _is_explorer_host(app: TuiTokApp) -> ExplorerHost:
    """Never called: mypy checks here that the app gives its views what ``ui/host.py`` promises."""
    return app
