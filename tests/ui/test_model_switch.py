"""Open model… / Compare with… (alt+m, alt+c): the picker as a screen, the model read, and the
explorer started again on it with the same text, toggles and conversation."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input
from ui_support import settle

from support import ASSETS, vocab_file
from tui_tok import read_gguf
from tui_tok.ui.app import TuiTokApp, relaunched_app
from tui_tok.ui.model_switch import recent_models
from tui_tok.ui.screens.chat import ChatScreen
from tui_tok.ui.screens.compare import CompareScreen
from tui_tok.ui.screens.picker import PickerScreen
from tui_tok.ui.screens.tokenize import TokenizeScreen
from tui_tok.ui.session_io import collect

QWEN3 = ASSETS / "qwen3-vocab.gguf"
PHI3 = ASSETS / "ggml-vocab-phi-3.gguf"
SIZE = (130, 40)
TEXT = "Hello <|im_start|> 日本語\r\nx"


async def _pick(app: TuiTokApp, pilot, key: str, spec: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(key)
    await settle(app, pilot)
    assert isinstance(app.screen, PickerScreen)
    box = app.screen.query_one("#picker-input", Input)
    box.value = spec
    box.focus()
    await pilot.press("enter")
    await settle(app, pilot)


async def test_open_model_carries_the_text_toggles_and_conversation() -> None:
    app = TuiTokApp(read_gguf(QWEN3), text=TEXT, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+t")  # parse special on
        await pilot.press("f5")
        await settle(app, pilot)
        await pilot.press("ctrl+n", "q")
        await settle(app, pilot)
        before = collect(app)
        await _pick(app, pilot, "alt+m", str(PHI3))
    target = app.relaunch
    assert target is not None and target.gguf.path == PHI3 and target.compare is None
    assert recent_models()[0] == str(PHI3.resolve())
    nxt = relaunched_app(target)
    async with nxt.run_test(size=SIZE) as pilot:
        await settle(nxt, pilot)
        assert nxt.session.name == PHI3.name
        screen = nxt.screen
        assert isinstance(screen, TokenizeScreen) and screen.parse_special
        assert list(nxt.ids) == nxt.tokenizer.encode(TEXT, parse_special=True)  # type: ignore[union-attr]
        await pilot.press("f5")
        await settle(nxt, pilot)
        assert isinstance(nxt.screen, ChatScreen)
        after = collect(nxt)
        assert after.chat == before.chat and after.text == TEXT
        assert after.model == str(PHI3.resolve())


async def test_compare_with_sets_the_compare_model() -> None:
    app = TuiTokApp(read_gguf(QWEN3), text=TEXT, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await _pick(app, pilot, "alt+c", str(PHI3))
    target = app.relaunch
    assert target is not None and target.gguf is app.session.gguf and target.compare is not None
    assert target.session.compare == str(PHI3.resolve())
    nxt = relaunched_app(target)
    async with nxt.run_test(size=SIZE) as pilot:
        await settle(nxt, pilot)
        screen = nxt.screen
        assert isinstance(screen, CompareScreen) and screen.diff is not None
        assert [t.id for t in screen.diff.b] == screen.tokenizer_b.encode(TEXT)
        await pilot.press("f1")  # the Tokenize view, made after the tokenizer was built, tokenizes too
        await settle(nxt, pilot)
        assert list(nxt.ids) == nxt.tokenizer.encode(TEXT)  # type: ignore[union-attr]


async def test_three_models_in_a_row_keep_the_text(tmp_path: Path) -> None:
    app = TuiTokApp(read_gguf(QWEN3), text=TEXT, show_timings=False)
    for spec in (str(PHI3), str(vocab_file("gpt-2").path), str(QWEN3)):
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert list(app.ids) == app.tokenizer.encode(TEXT)  # type: ignore[union-attr]
            await _pick(app, pilot, "alt+m", spec)
        assert app.relaunch is not None
        app = relaunched_app(app.relaunch)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.session.name == QWEN3.name and app.text == TEXT
        await pilot.press("alt+m")
        await settle(app, pilot)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert [c.name for c in picker.choices[:3]] == [str(QWEN3.resolve()), str(vocab_file("gpt-2").path.resolve()),
                                                        str(PHI3.resolve())]  # recent first  # fmt: skip
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TokenizeScreen) and app.relaunch is None


async def test_a_model_that_cannot_be_read_stays_in_the_picker(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf file at all")
    app = TuiTokApp(read_gguf(QWEN3), text=TEXT, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await _pick(app, pilot, "alt+m", str(bad))
        await pilot.pause()
        from textual.widgets import Static

        assert app.relaunch is None and isinstance(app.screen, PickerScreen)
        assert "bad.gguf" in str(app.screen.query_one("#picker-status", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TokenizeScreen) and app.text == TEXT


async def test_compare_without_a_model_names_the_key() -> None:
    app = TuiTokApp(read_gguf(QWEN3), text=TEXT, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f7")
        await settle(app, pilot)
        assert isinstance(app.screen, CompareScreen)
        from textual.widgets import Static

        shown = str(app.screen.query_one("#cmp-rows", Static).render())
        assert "alt+c" in shown and "--compare" in shown
        await _pick(app, pilot, "alt+c", str(PHI3))
    assert app.relaunch is not None and app.relaunch.compare is not None


async def test_tokenize_view_made_after_the_tokenizer_tokenizes() -> None:
    """Opened on the Compare view (a session or --compare), the Tokenize view is made once the
    tokenizer is built: it still tokenizes its text when first shown."""
    from tui_tok.ui.app import Opened, Opening

    opening = Opening("qwen3", lambda _progress: Opened(read_gguf(QWEN3), TEXT, read_gguf(PHI3)))
    app = TuiTokApp(opening=opening, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, CompareScreen)
        await pilot.press("f1")
        await settle(app, pilot)
        assert isinstance(app.screen, TokenizeScreen)
        assert list(app.ids) == app.tokenizer.encode(TEXT)  # type: ignore[union-attr]
