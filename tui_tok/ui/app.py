"""``TuiTokApp``: the views of one GGUF file, switched with F1-F8 (or 1-6 where nothing is typed;
Compare with a second file, Explain on a selected token).

No printable key quits: a person may be typing (the picker's path, a search, a message), and a
stray ``q`` lost the text and a built conversation. ``ctrl+q`` quits (Textual's own binding).
What is typed on a table with a search box goes to that box (``widgets/search_box.py``).

Paint first: ``run_app`` starts the app on a loading screen (the header and ``loading…``) and
reads the file and the ``--text`` in a worker after that first paint (the terminal stayed
blank while they were read: benchmarks/NOTES.md); the views' modules are imported there too, so
this module imports only Textual. A file that cannot be read ends the app, and ``run_app``
raises its one-line error on the shell. An app given a file read already opens on its views.
The chosen colour theme is remembered between runs (``ui/settings.py``).
The tokenizer, the vocabulary index and the lint report are built in background workers, one
after the other (``ui/builds.py``; with a long text the last two wait for pauses in typing);
views watch ``tokenizer`` / ``vocab_index`` / ``lint_report`` and fill in when they arrive.
"""

from __future__ import annotations

import gc
import importlib
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Center, Middle
from textual.filter import LineFilter
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Static

from tui_tok.errors import TuiTokError
from tui_tok.explore.visible import visible
from tui_tok.ui.builds import BackgroundBuilds
from tui_tok.ui.data_actions import DataActions
from tui_tok.ui.data_keys import BINDINGS as DATA_BINDINGS
from tui_tok.ui.drop_controls import DROP_CONTROLS
from tui_tok.ui.gc_pacing import GcPacer
from tui_tok.ui.session import Session
from tui_tok.ui.settings import load_settings, save_setting
from tui_tok.ui.textual_compat import compat_ok, key_bindings, plain_requested, status
from tui_tok.ui.widgets.info_bar import InfoBar
from tui_tok.ui.widgets.search_box import type_to_search
from tui_tok.ui.widgets.text_keys import TEXT_BOX_BINDINGS, TextBoxActions

if TYPE_CHECKING:
    from tui_tok.explore.lint import LintReport
    from tui_tok.explore.session_file import SessionState
    from tui_tok.explore.vocab_index import VocabIndex
    from tui_tok.gguf import GGUFFile
    from tui_tok.tokenizer.tokenizer import Tokenizer
    from tui_tok.ui.host import ExplorerHost
    from tui_tok.ui.model_switch import Relaunch

SAMPLE_TEXT = "Hello world! The tokenizer splits text into pieces.\n日本語 🙂 naïve café\n\tx = 42  # tab, spaces"
"""What the tokenize view shows first."""

VIEWS = (("tokenize", "Tokenize"), ("stream", "Stream"), ("vocab", "Vocab"), ("metadata", "Metadata"), ("chat", "Chat"),
         ("diagnostics", "Lint"))  # fmt: skip

SCREENS = {"tokenize": "TokenizeScreen", "stream": "StreamScreen", "vocab": "VocabScreen", "metadata": "MetadataScreen",
           "chat": "ChatScreen", "diagnostics": "DiagnosticsScreen", "compare": "CompareScreen",
           "explain": "ExplainScreen"}  # fmt: skip
"""Each view's screen class, in ``tui_tok.ui.screens.<mode>``: imported when first shown (or by
the loading worker), not with this module, which the first paint waits for."""


FOCUS_KEYS = frozenset({"tab", "shift+tab"})
FOCUS_MOVES = frozenset({"app.focus_next", "app.focus_previous", "focus_next", "focus_previous"})
"""Textual's focus keys and the actions its ``Screen`` binds them to."""


def _view(mode: str) -> Callable[[], Screen[Any]]:
    def make() -> Screen[Any]:
        screen: Screen[Any] = getattr(importlib.import_module(f"tui_tok.ui.screens.{mode}"), SCREENS[mode])()
        return screen

    return make


@dataclass(frozen=True, slots=True)
class Opened:
    """What the explorer shows: the file, its text and the ``--compare`` file, read."""

    gguf: GGUFFile
    text: str | None = None
    """The ``--text`` (None: the sample text)."""
    compare: GGUFFile | None = None
    label: str | None = None
    compare_label: str | None = None


@dataclass(frozen=True, slots=True)
class Opening:
    """What ``run_app`` reads after the first paint: ``read`` runs in a worker, gets a progress
    callback (a line of text) and raises ``TuiTokError`` for a file that cannot be read."""

    name: str
    """What the loading screen calls it."""
    read: Callable[[Callable[[str], None]], Opened]


@dataclass
class OpenProgress(Message):
    """A line on the loading screen."""

    line: str


@dataclass
class OpenDone(Message):
    """The loading worker is done: the file read, or why not."""

    opened: Opened | None
    error: TuiTokError | None


class LoadingScreen(Screen[None]):
    """The first paint: the header, and what is being read."""

    DEFAULT_CSS = """
    LoadingScreen #loading { width: auto; color: $text-muted; }
    LoadingScreen #info-state { display: none; }
    """

    def __init__(self, name: str) -> None:
        super().__init__()
        self.file_name = name

    def compose(self) -> ComposeResult:
        yield InfoBar(self.file_name, "Loading")
        with Middle(), Center():
            yield Static(f"loading {self.file_name}…", id="loading", markup=False)

    def show(self, line: str) -> None:
        loading = self.query_one("#loading", Static)
        loading.update(f"loading {self.file_name}… {line}" if line else f"loading {self.file_name}…")


class TuiTokApp(BackgroundBuilds, DataActions, TextBoxActions, App[int]):
    """Explore the tokenizer of one GGUF file."""

    CSS_PATH = "app.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide"), (160, "-wider")]
    """Width classes on every screen (app.tcss lays small terminals out apart)."""
    TITLE = "tui-tok"
    MODES = {mode: _view(mode) for mode in SCREENS}
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
        *DATA_BINDINGS,  # ctrl+c copy, alt+s/l/o/w/e/p files, alt+m/c models (ui/data_keys.py)
        *TEXT_BOX_BINDINGS,  # ctrl+a select all, alt+x clear, in every text box (widgets/text_keys.py)
    ]

    tokenizer: var[Tokenizer | None] = var(None)
    """The built tokenizer (None while building or when it cannot be built)."""
    tokenizer_error: var[str | None] = var(None)
    """Why the tokenizer could not be built."""
    vocab_index: var[VocabIndex | None] = var(None)
    """Searchable vocabulary, built from metadata alone."""
    lint_report: var[LintReport | None] = var(None)
    """The lint findings (None until the lint worker is done)."""
    ids: var[Sequence[int]] = var((), always_update=True)
    """Ids of the text in the tokenize view (the stream view replays them): a tuple, or
    ``TokenIds`` (an array read as one) from the tokenize view. Set without comparing to the
    last ids (3M of them with 10 MB of text: an O(n) compare on every key); watchers compare."""
    keep_cr_in_pastes: var[bool] = var(False)
    """Keep a paste's CR (the terminal's newline) instead of making it LF (``widgets/editor.py``);
    the tokenize view's toggle, remembered between runs."""
    text: var[str] = var("")
    """The text: what the tokenize view shows, also the compare view's (each edits it; ``ui/host.py``)."""
    pending_session: SessionState | None = None
    """A loaded session whose parts the views take when they mount (``ui/session_io.py``)."""
    compare_source: str | None = None
    """The compare file as it was named (saved in sessions); None: its path."""
    relaunch: Relaunch | None = None
    """Set when the app exits to open another model (``run_app`` starts the next one)."""

    def __init__(
        self,
        gguf: GGUFFile | None = None,
        *,
        text: str = SAMPLE_TEXT,
        load_tokenizer: bool = True,
        show_timings: bool = True,
        compare: GGUFFile | None = None,
        label: str | None = None,
        compare_label: str | None = None,
        opening: Opening | None = None,
    ) -> None:
        """``gguf`` read already, or ``opening``: what to read once the loading screen is painted."""
        if gguf is None and opening is not None:
            # the first mode Textual makes is DEFAULT_MODE's: the views need the file, read later
            self.DEFAULT_MODE = "loading"  # type: ignore[misc]
        super().__init__()
        self.show_timings = show_timings
        """Show how long tokenizing and searching took (off for deterministic snapshots)."""
        self._load = load_tokenizer
        self._session: Session | None = None
        self.compare_gguf: GGUFFile | None = None
        """The second file of ``--compare`` (the compare view, F7)."""
        self.compare_label: str | None = None
        """The name to show for it (None: its file name)."""
        self._first_text: str | None = text
        """The text to open on when ``opening`` gives none (the sample); dropped once opened."""
        self.opening = opening
        # before the views are made: the tokenize view's check box starts from it
        self.set_reactive(TuiTokApp.keep_cr_in_pastes, load_settings().get("keep_cr_in_pastes") is True)
        self.load_error: TuiTokError | None = None
        """Why ``opening`` could not be read (the app has exited; ``run_app`` raises it)."""
        if gguf is not None:
            self._opened(Opened(gguf, text, compare, label, compare_label))
        elif opening is not None:
            self.sub_title = visible(opening.name)
            self.add_mode("loading", lambda: LoadingScreen(opening.name))
        else:
            raise ValueError("TuiTokApp needs a file (gguf) or what to read (opening)")
        self.first_paint_at: float | None = None
        """perf_counter() after the first screen was painted (for benchmarks)."""
        self.tokenizer_ready_at: float | None = None
        """perf_counter() when the built tokenizer (or its error) reached the app (for benchmarks)."""
        self.pending_vocab_token: int | None = None
        """A token the vocabulary view should put under its cursor when it next shows."""
        self.pending_metadata_key: tuple[str, int | None, int | None] | None = None
        """A metadata key (and template line) the metadata view should show when it next shows."""
        self.text_idle = threading.Event()
        """Clear while the tokenize view tokenizes a long text whole: the index and lint wait (``BackgroundBuilds.wait_quiet``)."""
        self.text_idle.set()
        self.gc_pacer = GcPacer(self)
        """Collects garbage between frames (automatic collection is off while the app runs)."""

    @property
    def session(self) -> Session:
        """The open file (read before any view is made)."""
        assert self._session is not None, "no file yet: the views are made once it is read"
        return self._session

    @session.setter
    def session(self, session: Session) -> None:
        self._session = session

    def _opened(self, opened: Opened) -> None:
        self.session = Session(opened.gguf, label=opened.label)
        self.compare_gguf, self.compare_label = opened.compare, opened.compare_label
        if opened.compare is not None:  # F7 in the footer (without a file it still explains how to start)
            bindings = key_bindings(self)
            if "f7" in bindings:
                bindings["f7"] = [replace(b, show=True) for b in bindings["f7"]]
        text = (self._first_text or "") if opened.text is None else opened.text
        # not kept: after a key in a 10 MB text the text it started with (36 MB as a str with one emoji) stayed alive
        self._first_text = None
        self.set_reactive(TuiTokApp.text, text)
        self.sub_title = visible(self.session.name)

    def on_mount(self) -> None:
        self.log(status())
        if not compat_ok() and not plain_requested():  # another Textual than the one written for
            self.notify(status(), severity="warning", timeout=8)
        theme = load_settings().get("theme")
        if isinstance(theme, str) and theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, lambda theme: save_setting("theme", theme.name))
        self.gc_pacer.start()
        if self._session is None:  # the loading screen is up: read once it is painted
            self.call_after_refresh(self._open)
            return
        if self.compare_gguf is not None:  # `--compare B.gguf`: open on the comparison
            self.switch_mode("compare")
        # after the first paint: the builds hold the GIL for seconds and would delay it
        self.call_after_refresh(self._start_builds)

    def _open(self) -> None:
        self.first_paint_at = time.perf_counter()
        self._read_opening()

    @work(thread=True, exclusive=True, group="open", description="reading the model")
    def _read_opening(self) -> None:
        opening = self.opening
        assert opening is not None
        last = [0.0]

        def progress(line: str) -> None:
            now = time.monotonic()
            if now - last[0] >= 0.1:  # at most 10 lines a second
                last[0] = now
                self.post_message(OpenProgress(line))

        try:
            opened = opening.read(progress)
        except TuiTokError as exc:
            self.post_message(OpenDone(None, exc))
            return
        progress("")
        self.post_message(OpenProgress("preparing the views"))
        for mode in ("tokenize", "compare" if opened.compare is not None else ""):
            if mode:  # imported here, not on the UI thread when the view is made
                importlib.import_module(f"tui_tok.ui.screens.{mode}")
        self.post_message(OpenDone(opened, None))

    def on_open_progress(self, message: OpenProgress) -> None:
        if isinstance(self.screen, LoadingScreen):
            self.screen.show(message.line)

    def on_open_done(self, message: OpenDone) -> None:
        if message.error is not None or message.opened is None:
            self.load_error = message.error
            self.exit(return_code=message.error.exit_code if message.error is not None else 1)
            return
        self._opened(message.opened)
        # the loading screen is painted: the tokenizer builds while the views are made (with a
        # 10 MB text the view's editor takes ~0.5 s, which the count no longer waits for)
        self._start_builds()
        self.switch_mode("compare" if self.compare_gguf is not None else "tokenize")

    def on_unmount(self) -> None:
        self.gc_pacer.stop()

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then ``DropControls``: no control from the file reaches the terminal."""
        return [*super().get_line_filters(), DROP_CONTROLS]

    async def on_event(self, event: events.Event) -> None:
        self.activity_from(event)  # the background builds wait for pauses in typing (``ui/builds.py``)
        if isinstance(event, events.Key) and (type_to_search(self, event) or await self._move_focus_now(event)):
            return
        await super().on_event(event)

    async def _move_focus_now(self, event: events.Key) -> bool:
        """Run Tab's (shift+Tab's) focus move here, in the app's queue of keys, when the screen's
        binding is what takes it (no box types it: a ``TextArea`` that indents consumes it, and
        ``active_bindings`` leaves it out then). Textual hands the key to the focused box, and the
        screen's binding moves the focus only once the key has bubbled back up to it: meanwhile the
        app had handed the next keys of the burst (a terminal read: Tab then ``abc``) to the box
        the cursor had left. True when moved."""
        if event.key not in FOCUS_KEYS or event.is_forwarded:
            return False
        active = self.screen.active_bindings.get(event.key)
        if active is None or not active.enabled or active.binding.action not in FOCUS_MOVES:
            return False
        return await self.run_action(active.binding.action, active.node)

    def _start_builds(self) -> None:
        if self.first_paint_at is None:
            self.first_paint_at = time.perf_counter()
        if self._load:
            self.build_tokenizer()
        else:
            self.build_index()

    def watch_keep_cr_in_pastes(self, value: bool) -> None:
        save_setting("keep_cr_in_pastes", value)

    def action_toggle_keys(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_explain(self) -> None:
        """F8: explain the token selected in the current view (the Tokenize view knows it)."""
        if self._session is None:
            return
        explain_selection = getattr(self.screen, "explain_selection", None)
        if explain_selection is not None:
            explain_selection()
        else:
            self.switch_mode("explain")

    def show_token_in_vocab(self, token_id: int) -> None:
        """Switch to the vocabulary with ``token_id`` under the cursor."""
        self.pending_vocab_token = token_id
        self.switch_mode("vocab")

    def show_key_in_metadata(self, key: str, line: int | None = None, column: int | None = None) -> None:
        """Switch to the metadata view with ``key`` highlighted (and its value at ``line``, ``column`` marked)."""
        self.pending_metadata_key = (key, line, column)
        self.switch_mode("metadata")

    async def action_switch_mode(self, mode: str) -> None:
        if self._session is not None:  # while loading there is no view to show
            self.switch_mode(mode)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if self._session is None:
            return
        for i, (mode, title) in enumerate(VIEWS, 1):
            yield SystemCommand(
                f"View: {title}", f"Switch to the {title.lower()} view (F{i})", lambda m=mode: self.switch_mode(m)
            )
        yield SystemCommand(
            "View: Compare", "Compare with the --compare file (F7)", lambda: self.switch_mode("compare")
        )
        commands = getattr(screen, "palette_commands", None)
        if commands is not None:
            yield from commands()
        yield from self.data_commands(screen)


def open_model(model_path: str | Path) -> GGUFFile:
    """Read ``model_path`` as the explorer does: with the merges' text kept (``Vocab.merges_text``),
    which the BPE encoder searches and cuts instead of joining 150k-515k strings again."""
    from tui_tok.gguf import read_gguf

    return read_gguf(model_path, texts=("tokenizer.ggml.merges",))


def run_app(opening: Opening, *, session: SessionState | None = None) -> int:
    """Run the explorer: it paints, then reads ``opening`` in a worker. A file that cannot be read
    ends it, and its ``TuiTokError`` is raised here (one line on the shell, exit code 2).
    ``session``: a session file's state to reopen (``--session``; the text is ``opening``'s).
    "Open model…" ends the app with a ``Relaunch``: the next one opens on it."""
    from tui_tok.ui.fast_paste import use_bulk_paste
    from tui_tok.ui.heap import reuse_freed_memory
    from tui_tok.ui.lenient_input import accept_invalid_utf8

    reuse_freed_memory()  # a key in a 10 MB text: no page faults for its new text and columns
    accept_invalid_utf8()
    use_bulk_paste()
    app = TuiTokApp(opening=opening)
    app.pending_session = session  # the views take their parts when they mount
    result = app.run()
    if app.load_error is not None:
        raise app.load_error
    while app.relaunch is not None:  # "Open model…" / "Compare with…": the same state on the new file(s)
        gc.unfreeze()  # the model left behind was frozen (``builds.freeze_heap``): back to the collector
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
