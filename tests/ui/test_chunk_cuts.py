"""Chunk cuts over the Tokens view (``^R``, issue 15 point 3): Pilot tests on the bundled Qwen3 vocab.

What is drawn is checked against the engine's explanation directly: per character of a row,
underlined iff an odd number of chunk starts lie after its line's start, up to it.
"""

from __future__ import annotations

from textual.widgets import Checkbox, TextArea
from ui_support import make_app, settle

from support import ASSETS
from tui_tok.tokenizer.explain import explain
from tui_tok.ui.app import TuiTokApp
from tui_tok.ui.screens import tokenize_cuts
from tui_tok.ui.screens.tokenize import TokenizeScreen
from tui_tok.ui.widgets.token_view import TokenView

SIZE = (120, 36)
TEXT = "Hello world! It's 12345 ok\n  second line<|im_start|>user"


def _app(text: str = TEXT) -> TuiTokApp:
    return make_app(ASSETS / "qwen3-vocab.gguf", text=text)


async def _cuts_arrive(app: TuiTokApp, pilot, screen: TokenizeScreen, count: int) -> None:  # type: ignore[no-untyped-def]
    """Wait (at most ~6 s) until ``count`` explanations have been drawn: they start after a pause."""
    for _ in range(120):
        await settle(app, pilot)
        if screen.cuts.computed >= count:
            return
        await pilot.pause(0.05)
    raise AssertionError(f"chunk cuts never arrived ({screen.cuts.computed} of {count})")


def _expected(app: TuiTokApp, text: str, parse_special: bool) -> list[list[bool]]:
    """Underline per character of each line, from the explanation (ASCII text: bytes = characters)."""
    assert text.isascii()
    expl = explain(app.tokenizer, text, parse_special=parse_special)  # type: ignore[arg-type]
    starts = {f.start for f in expl.fragments} | {c.start for f in expl.fragments for c in f.chunks}
    out, line_start = [], 0
    for line in text.split("\n"):
        n = len(line) + 1  # with its newline (drawn as ↵)
        out.append([sum(1 for m in starts if line_start < m <= line_start + k) % 2 == 1 for k in range(n)])
        line_start += n
    out[-1] = out[-1][:-1]
    return out


def _drawn(view: TokenView, row: int, n: int) -> list[bool]:
    """Underline of the first ``n`` cells of row ``row`` as the view draws it."""
    cells: list[bool] = []
    for seg in view.build_row(row):
        cells += [bool(seg.style and seg.style.underline)] * len(seg.text)
    return cells[:n]


async def test_cuts_drawn_are_the_explanations_chunks() -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TokenizeScreen)
        view = screen.query_one("#tok-view", TokenView)
        assert not any(any(_drawn(view, y, 40)) for y in range(2))  # off: nothing underlined
        await pilot.press("ctrl+r")
        await _cuts_arrive(app, pilot, screen, 1)
        assert screen.show_cuts and screen.query_one("#cb-show_cuts", Checkbox).value
        for parse_special in (False, True):
            expected = _expected(app, TEXT, parse_special)
            assert any(expected[0]) and any(expected[1])
            for y, line in enumerate(expected):
                assert _drawn(view, y, len(line)) == line, (parse_special, y)
            assert "underline" in str(view.border_title)
            if not parse_special:
                await pilot.press("ctrl+t")  # parse special: <|im_start|> becomes one fragment
                await _cuts_arrive(app, pilot, screen, 2)
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert view.cut_marks is None and view.border_title == "Tokens"
        assert not any(any(_drawn(view, y, 40)) for y in range(2))


async def test_typing_carries_the_cuts_then_recomputes_them() -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TokenizeScreen)
        view = screen.query_one("#tok-view", TokenView)
        await pilot.press("ctrl+r")
        await _cuts_arrive(app, pilot, screen, 1)
        before = view.cut_marks
        assert before is not None
        editor = screen.query_one("#tok-input", TextArea)
        editor.focus()
        editor.cursor_location = (0, 0)
        await pilot.press("X")
        # at once, before any explanation of the new text: the old cuts, moved by one character
        carried = view.cut_marks
        assert carried is not None and carried.text == "X" + TEXT
        assert carried.starts.tolist() == [m + 1 for m in before.starts.tolist()]
        await _cuts_arrive(app, pilot, screen, 2)
        new_text = "X" + TEXT
        for y, line in enumerate(_expected(app, new_text, False)):
            assert _drawn(view, y, len(line)) == line


async def test_off_no_cuts_are_computed() -> None:
    """With the toggle off, typing never explains anything (the keystroke path is unchanged)."""
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TokenizeScreen)
        await pilot.press("a", "b", "space", "c")
        await pilot.pause(tokenize_cuts.PAUSE_S + 0.2)
        await settle(app, pilot)
        assert screen.cuts.computed == 0 and screen.query_one("#tok-view", TokenView).cut_marks is None


async def test_a_text_over_the_limit_is_not_explained(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(tokenize_cuts, "MAX_CHARS", 20)
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TokenizeScreen)
        await pilot.press("ctrl+r")
        await pilot.pause(tokenize_cuts.PAUSE_S + 0.2)
        await settle(app, pilot)
        view = screen.query_one("#tok-view", TokenView)
        assert screen.cuts.computed == 0 and view.cut_marks is None
        assert "over 20 characters" in str(view.border_title)


async def test_the_toggle_is_a_key_a_check_box_and_a_command() -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TokenizeScreen)
        binding = screen.active_bindings["ctrl+r"].binding
        assert binding.description == "Chunk cuts"  # listed in the keys panel (F9)
        assert any("chunk cuts" in c.title.lower() for c in screen.palette_commands())
        await pilot.click("#cb-show_cuts")
        await _cuts_arrive(app, pilot, screen, 1)
        assert screen.show_cuts and screen.query_one("#tok-view", TokenView).cut_marks is not None


def test_chunk_cuts_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """Qwen3 with chunk cuts on: in each line of the Tokens view every other chunk is underlined
    (`·world` yes, `!` no, `·It` yes, `'s` no, each digit its own chunk), the title says so, the
    check box is marked; the tokens view has the focus (no blinking cursor in the picture)."""

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        app = pilot.app
        await settle(app, pilot)
        await pilot.press("ctrl+r", "escape")
        await _cuts_arrive(app, pilot, app.screen, 1)

    assert snap_compare(_app(), terminal_size=SIZE, run_before=run_before)
