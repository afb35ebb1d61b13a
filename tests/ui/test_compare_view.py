"""The compare view (F7, ``tui-tok A --compare B``): Pilot tests and a snapshot, on bundled assets."""

from __future__ import annotations

from textual.widgets import Static, TextArea
from ui_support import settle

from support import ASSETS
from tui_tok import read_gguf
from tui_tok.ui.app import TuiTokApp
from tui_tok.ui.screens.compare import CompareScreen

SIZE = (120, 36)
TEXT = "Hello world! <|im_start|>user\n日本語 🙂 naïve"


def make(a: str = "qwen3-vocab.gguf", b: str | None = "ggml-vocab-phi-3.gguf", text: str = TEXT) -> TuiTokApp:
    return TuiTokApp(read_gguf(ASSETS / a), text=text, show_timings=False,
                     compare=None if b is None else read_gguf(ASSETS / b))  # fmt: skip


def rows(app: TuiTokApp) -> str:
    return str(app.screen.query_one("#cmp-rows", Static).render())


async def test_opens_on_the_comparison() -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen) and screen.diff is not None
        d = screen.diff
        assert [t.id for t in d.a] == app.tokenizer.encode(TEXT)  # type: ignore[union-attr]
        shown = rows(app)
        assert f"{len(d.a)} tokens" in shown and f"{len(d.b)} tokens" in shown
        assert "first difference at byte 0 (token 0)" in shown  # phi-3 adds <s>
        assert "tokens only in A" in str(screen.query_one("#cmp-vocab", Static).render())


async def test_editing_and_toggles_recompute() -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        screen.query_one("#cmp-input", TextArea).load_text("abc")
        await settle(app, pilot)
        assert screen.diff is not None and screen.diff.text == b"abc"
        n_before = len(screen.diff.b)
        await pilot.press("ctrl+b")  # add special off: phi-3 loses its <s>
        await settle(app, pilot)
        assert screen.add_special is False and len(screen.diff.b) == n_before - 1


async def test_same_file_is_same() -> None:
    app = make(b="qwen3-vocab.gguf")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert "same tokenization" in rows(app)


async def test_without_compare_f7_explains() -> None:
    app = make(b=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f7")
        await settle(app, pilot)
        assert isinstance(app.screen, CompareScreen) and "--compare" in rows(app)


def test_compare_view_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """Qwen3 (A) over phi-3 (B): counts, first difference at byte 0 (phi-3's <s>), the differing
    columns in reverse red (<|im_start|> is text to both here, split differently; the emoji is one
    token in Qwen3 and four byte tokens in phi-3), and the vocabulary diff below."""

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        app = pilot.app
        for _ in range(50):  # both tokenizers, the diff and the app's vocabulary index all in
            await settle(app, pilot)
            screen = app.screen
            if app.vocab_index is not None and isinstance(screen, CompareScreen) and screen.diff is not None:
                break
        await pilot.press("ctrl+l")  # focus the diff: the text box's blinking cursor would make the picture flaky
        await settle(app, pilot)

    assert snap_compare(make(), terminal_size=SIZE, run_before=run_before)


def _editor_text(app: TuiTokApp, selector: str) -> str:
    return app.screen.query_one(selector, TextArea).text


async def test_compare_shows_the_text_typed_in_the_tokenize_view() -> None:
    """Issue 18 point 3: the compare view's text is the tokenize view's, both ways."""
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        compare = app.screen
        assert isinstance(compare, CompareScreen)
        await pilot.press("f1")
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", TextArea)
        editor.focus()
        editor.cursor_location = editor.document.end
        await pilot.press("space", "c", "a", "f", "é")
        await settle(app, pilot)
        typed = TEXT + " café"
        assert _editor_text(app, "#tok-input") == typed and app.text == typed
        await pilot.press("f7")
        await settle(app, pilot)
        assert app.screen is compare and _editor_text(app, "#cmp-input") == typed
        assert compare.diff is not None and compare.diff.text == typed.encode()
        assert [t.id for t in compare.diff.a] == app.tokenizer.encode(typed)  # type: ignore[union-attr]
        # and back: an edit here is the tokenize view's text when it is shown again
        box = compare.query_one("#cmp-input", TextArea)
        box.focus()
        box.cursor_location = box.document.end
        await pilot.press("!")
        await settle(app, pilot)
        assert app.text == typed + "!" and compare.diff.text == (typed + "!").encode()
        await pilot.press("f1")
        await settle(app, pilot)
        assert _editor_text(app, "#tok-input") == typed + "!"
        assert list(app.ids) == app.tokenizer.encode(typed + "!")  # type: ignore[union-attr]


async def test_a_text_set_while_shown_is_loaded_at_once() -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        app.text = "abc"
        await settle(app, pilot)
        assert _editor_text(app, "#cmp-input") == "abc" and screen.diff is not None and screen.diff.text == b"abc"


def _footer_keys(app: TuiTokApp) -> list[str]:
    return [str(key.description) for key in app.screen.query("FooterKey")]


async def test_f7_is_in_the_footer_only_with_a_compare_file() -> None:
    for b, shown in (("ggml-vocab-phi-3.gguf", True), (None, False)):
        app = make(b=b)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await pilot.press("f1")
            await settle(app, pilot)
            shown_keys = [str(key.key) for key in app.screen.query("FooterKey")]  # "Compare" or "Cmp"
            assert ("f7" in shown_keys) is shown, _footer_keys(app)
            assert "Explain" in _footer_keys(app)
