"""Copying from each view (``ui/clipboard.py``): ctrl+c outside text boxes and the palette's commands,
checked on the app's clipboard (what ``App.copy_to_clipboard`` was given), with a notification."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from textual.widgets import DataTable
from ui_support import make_app, settle

from lint_support import broken
from support import ASSETS
from tui_tok import read_gguf
from tui_tok.explore.copy_forms import bytes_of, finding_text
from tui_tok.ui import clipboard
from tui_tok.ui.app import TuiTokApp
from tui_tok.ui.screens.chat import ChatScreen
from tui_tok.ui.screens.compare import CompareScreen
from tui_tok.ui.screens.diagnostics import DiagnosticsScreen
from tui_tok.ui.screens.explain import ExplainScreen
from tui_tok.ui.widgets.id_strip import IdStrip
from tui_tok.ui.widgets.token_details import TokenDetails
from tui_tok.ui.widgets.token_view import TokenView

QWEN3 = ASSETS / "qwen3-vocab.gguf"
SIZE = (120, 36)
TEXT = "Hello world! 日本語 🙂"


def _notes(app: TuiTokApp) -> list[str]:
    return [n.message for n in app._notifications]


async def _palette(app: TuiTokApp, title: str) -> None:
    """Run the palette command ``title`` of the current screen (what choosing it in ctrl+p does)."""
    commands = {c.title: c for c in app.get_system_commands(app.screen)}
    assert title in commands, sorted(commands)
    commands[title].callback()


async def test_tokens_panel_ctrl_c_copies_the_ids() -> None:
    app = make_app(QWEN3, text=TEXT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#tok-view", TokenView).focus()
        await pilot.press("ctrl+c")
        assert json.loads(app.clipboard) == list(app.ids) == app.tokenizer.encode(TEXT)  # type: ignore[union-attr]
        assert app.clipboard.startswith("[") and ", " in app.clipboard
        assert any(n.startswith("Copied the token ids") for n in _notes(app))
        assert not any("ctrl+q" in n for n in _notes(app))


async def test_palette_copies_pieces_and_details() -> None:
    app = make_app(QWEN3, text=TEXT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tok = app.tokenizer
        assert tok is not None
        await _palette(app, "Copy the token pieces")
        assert [bytes_of(p) for p in json.loads(app.clipboard)] == [tok.token_to_piece(i) for i in app.ids]
        app.screen.query_one("#tok-view", TokenView).focus()
        await pilot.press("home", "right")
        await pilot.pause()
        await _palette(app, "Copy the selected token's details")
        assert str(app.ids[1]) in app.clipboard and "world" in app.clipboard
        await pilot.pause()
        assert any(n.startswith("Copied the selected token's details") for n in _notes(app)), _notes(app)


async def test_clicking_an_id_selects_its_token() -> None:
    app = make_app(QWEN3, text=TEXT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        strip = app.screen.query_one("#tok-ids", IdStrip)
        ids = [str(i) for i in app.ids]
        x = sum(len(s) + 1 for s in ids[:2]) + 1  # inside the third label
        await pilot.click(strip, offset=(x + strip.gutter.left, strip.gutter.top))
        await pilot.pause()
        assert app.screen.query_one("#tok-view", TokenView).cursor == 2
        assert strip.cursor == 2
        assert ids[2] in str(app.screen.query_one("#tok-details", TokenDetails).render())


async def test_chat_copies_the_prompt_and_its_ids() -> None:
    app = make_app(QWEN3)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("f5")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen) and screen.prompt is not None
        await pilot.press("escape", "ctrl+c")  # to the tokens: a message box would copy its own selection
        assert app.clipboard == screen.prompt.rendered
        await _palette(app, "Copy the chat prompt's ids")
        assert json.loads(app.clipboard) == screen.prompt.ids


async def test_diagnostics_copies_the_finding(tmp_path: Path) -> None:
    app = make_app(broken(tmp_path, "qwen3-vocab.gguf", eos_token_id=160000))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f6")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, DiagnosticsScreen)
        screen.query_one(DataTable).focus()
        await pilot.press("ctrl+c")
        finding = screen.current()
        assert finding is not None and app.clipboard == finding_text(finding)
        assert finding.code in app.clipboard and "hint:" in app.clipboard


async def test_compare_copies_the_diff() -> None:
    app = TuiTokApp(read_gguf(QWEN3), text=TEXT, show_timings=False,
                    compare=read_gguf(ASSETS / "ggml-vocab-phi-3.gguf"))  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen) and screen.diff is not None
        await _palette(app, "Copy the diff")
        assert "first difference at byte 0 (token 0)" in app.clipboard
        assert f"A ids: {[t.id for t in screen.diff.a]}" in app.clipboard
        assert "ggml-vocab-phi-3.gguf" in app.clipboard


async def test_explain_copies_the_trace() -> None:
    app = make_app(QWEN3, text="Hello tokenizer")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#tok-view", TokenView).focus()
        await pilot.press("home", "right", "f8")
        await settle(app, pilot)
        assert isinstance(app.screen, ExplainScreen)
        await pilot.press("ctrl+c")
        assert app.clipboard.startswith(f"{len(app.screen.explanation.ids)} tokens: ")  # type: ignore[union-attr]
        assert "chunk [" in app.clipboard


async def test_a_view_without_copies_says_how_to_quit_and_big_copies_are_refused() -> None:
    app = make_app(QWEN3, text=TEXT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("alt+m")  # the model picker: nothing of the text to copy
        await settle(app, pilot)
        await pilot.press("ctrl+c")
        assert app.clipboard == "" and any("ctrl+q" in n for n in _notes(app))
        assert not clipboard.copy_text(app, "x" * (clipboard.MAX_COPY_CHARS + 1), "text")
        await pilot.pause()
        assert app.clipboard == "" and any(n.startswith("The text is too long") for n in _notes(app))


async def test_stream_vocab_and_metadata_copies() -> None:
    app = make_app(QWEN3, text=TEXT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")
        await settle(app, pilot)
        await pilot.press("ctrl+c")
        assert json.loads(app.clipboard) == list(app.ids)
        await pilot.press("f3")
        await settle(app, pilot)
        from tui_tok.ui.widgets.vocab_table import VocabTable

        table = app.screen.query_one("#vocab-table", VocabTable)
        table.focus()
        table.cursor = 5
        await pilot.pause()
        await pilot.press("ctrl+c")
        assert str(int(table.ids[5])) in app.clipboard
        await pilot.press("f4")
        await settle(app, pilot)
        from tui_tok.ui.screens.metadata import MetadataScreen

        screen = app.screen
        assert isinstance(screen, MetadataScreen)
        meta = screen.query_one("#meta-table", DataTable)
        row = next(i for i, r in enumerate(screen.shown) if r.key == "tokenizer.chat_template")
        meta.move_cursor(row=row)
        await pilot.pause()
        await pilot.press("ctrl+c")
        assert app.clipboard == app.session.gguf.metadata["tokenizer.chat_template"]
        row = next(i for i, r in enumerate(screen.shown) if r.key == "tokenizer.ggml.token_type")
        meta.move_cursor(row=row)
        await pilot.pause()
        await _palette(app, "Copy the metadata value")
        assert json.loads(app.clipboard) == list(app.session.gguf.metadata["tokenizer.ggml.token_type"])


async def test_clicking_a_chat_id_selects_its_token() -> None:
    app = make_app(QWEN3)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("f5")
        await settle(app, pilot)
        strip = app.screen.query_one("#chat-ids", IdStrip)
        labels = [strip.label(i) for i in range(3)]
        x = sum(len(s) + 1 for s in labels[:2]) + 1
        await pilot.click(strip, offset=(x + strip.gutter.left, strip.gutter.top))
        await pilot.pause()
        assert app.screen.query_one("#chat-view", TokenView).cursor == 2 and strip.cursor == 2


def test_asking_what_a_view_copies_imports_no_other_view() -> None:
    # the footer asks on the first frame: importing every view then held the UI thread (10 MB --text)
    code = (
        "import sys\n"
        "from textual.screen import Screen\n"
        "from tui_tok.ui.clipboard import copies\n"
        "assert copies(Screen()) == []\n"
        "print(sorted(m for m in sys.modules if m.startswith('tui_tok.ui.screens.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
