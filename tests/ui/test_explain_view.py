"""Pilot tests of the Explain view (F8 on a selected token) on a BPE, an SPM and a UGM file,
and a snapshot."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Static
from ui_support import make_app, settle

from support import vocab_file
from tui_tok.tokenizer.explain import explain
from tui_tok.ui.screens.explain import ExplainScreen
from tui_tok.ui.widgets.explain_steps import MergeStepper
from tui_tok.ui.widgets.token_view import TokenView

SIZE = (120, 36)


async def _explain_token(app, pilot, rights: int) -> ExplainScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    app.screen.query_one("#tok-view", TokenView).focus()
    await pilot.press("home", *["right"] * rights)
    await pilot.press("f8")
    await settle(app, pilot)
    assert isinstance(app.screen, ExplainScreen)
    return app.screen


async def test_bpe_merges_step_like_a_debugger() -> None:
    app = make_app(vocab_file("gpt-2").path, text="Hello tokenizer")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _explain_token(app, pilot, 1)  # " token"
        chunk = screen.chunk
        assert chunk is not None and chunk.text == "Ġtokenizer"
        expected = explain(app.tokenizer, "Hello tokenizer").fragments[0].chunks[1]
        assert chunk.steps == expected.steps
        stepper = screen.query_one("#ex-steps", MergeStepper)
        assert len(stepper.rows) == len(chunk.steps) + 1 and stepper.step == 0
        await pilot.press("n", "n")
        assert stepper.step == 2
        assert "rank" in str(stepper.render())
        await pilot.press("p")
        assert stepper.step == 1
        summary = str(screen.query_one("#ex-summary", Static).render())
        assert "GPT-2 (custom splitter)" in summary
        screen.query_one("#ex-why", Input).value = "Ġtoken|izer"
        await pilot.press("w")
        await pilot.press("enter")
        await settle(app, pilot)
        assert "the engine made this split" in str(screen.query_one("#ex-answer", Static).render())


async def test_spm_shows_scores_and_byte_fallback() -> None:
    app = make_app(vocab_file("phi-3").path, text="hi 🙂")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _explain_token(app, pilot, 3)  # the emoji's first byte token (after BOS, ▁hi, ▁)
        chunk = screen.chunk
        assert chunk is not None
        assert any(s.kind == "bytes" for s in chunk.steps)
        assert "byte fallback" in str(screen.query_one("#ex-steps", MergeStepper).render())


async def test_ugm_lattice_table() -> None:
    app = make_app(vocab_file("t5-botchan-en-unigram-1000").path, text="Hello world")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _explain_token(app, pilot, 1)
        table = screen.query_one("#ex-lattice", DataTable)
        assert table.display and table.row_count > 0
        text = str(screen.query_one("#ex-steps", MergeStepper).render())
        assert "#1 total" in text and "#2 total" in text and "#3 total" in text


def test_explain_view_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """gpt-2: F8 on ' tokenizer': the text with chunk cuts (│), the chunk's regex, the merge
    rows with the merged pair highlighted, stepped twice with n."""
    app = make_app(vocab_file("gpt-2").path, text="Hello tokenizer world!")

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot.app, pilot)
        pilot.app.screen.query_one("#tok-view", TokenView).focus()
        await pilot.press("home", "right", "f8")
        await settle(pilot.app, pilot)
        await pilot.press("n", "n")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
