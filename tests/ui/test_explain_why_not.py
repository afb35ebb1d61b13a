"""The Explain view's "Why not?" box tells the chunk's own story (issue 27): on Qwen3, 'ation' in
' tokenization' was built at step 7 of the stepper and absorbed at step 9; '|' is one message."""

from __future__ import annotations

from textual.widgets import Input, Static
from ui_support import make_app, settle

from support import vocab_file
from tui_tok.ui.screens.explain import ExplainScreen
from tui_tok.ui.widgets.token_view import TokenView


async def _ask(app, pilot, screen: ExplainScreen, question: str) -> str:  # type: ignore[no-untyped-def]
    box = screen.query_one("#ex-why", Input)
    if not box.has_focus:
        await pilot.press("w")  # the view's key for the box
    box.value = question
    await pilot.press("enter")
    await settle(app, pilot)
    return str(screen.query_one("#ex-answer", Static).render())


async def test_why_not_a_piece_built_then_absorbed() -> None:
    app = make_app(vocab_file("qwen3-vocab").path, text=" tokenization")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#tok-view", TokenView).focus()
        await pilot.press("home", "f8")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ExplainScreen)
        for question in ("ation", "Ġtokeniz|ation"):
            answer = " ".join((await _ask(app, pilot, screen, question)).split())
            assert (
                "'ation' was built at step 7 ('at' + 'ion', rank 111), then absorbed into 'ization' by step 9" in answer
            )
            assert "would need" not in answer
        answer = await _ask(app, pilot, screen, "|")
        assert "empty piece" in answer and "not a token" not in answer and answer.count("\n") <= 2
