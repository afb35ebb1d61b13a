"""Pilot tests of the tokenize view: the ids shown are llama.cpp's (conformance rows)."""

from __future__ import annotations

import pytest
from textual.widgets import TextArea
from ui_support import make_app, settle

from support import conformance_rows, vocab_file
from tui_tok.ui.screens.tokenize import TokenizeScreen
from tui_tok.ui.widgets.token_details import TokenDetails
from tui_tok.ui.widgets.token_view import TokenView

NAMES = ["qwen3-vocab", "phi-3"]


def _rows(name: str, count: int = 12) -> list[dict]:
    """A spread of rows, every toggle combination, favouring ones with special tokens."""
    rows = [r for r in conformance_rows(name) if r["text"]]
    special = [r for r in rows if "<" in r["text"]]
    return (special + rows[:: max(1, len(rows) // count)])[:count]


async def _set_toggles(pilot, screen: TokenizeScreen, *, add_special: bool, parse_special: bool) -> None:  # type: ignore[no-untyped-def]
    if screen.add_special != add_special:
        await pilot.press("ctrl+b")
    if screen.parse_special != parse_special:
        await pilot.press("ctrl+t")


@pytest.mark.parametrize("name", NAMES)
async def test_typed_text_gives_llama_ids(name: str) -> None:
    """Typing into the editor key by key shows the reference ids (add_special on by default)."""
    row = next(
        r for r in conformance_rows(name) if r["text"] == "Hello world" and r["add_special"] and not r["parse_special"]
    )
    app = make_app(vocab_file(name).path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        for ch in row["text"]:
            await pilot.press("space" if ch == " " else ch)
        await settle(app, pilot)
        assert list(app.ids) == row["ids"]


@pytest.mark.parametrize("name", NAMES)
async def test_toggles_match_conformance_rows(name: str) -> None:
    """add_special / parse_special toggles change the ids exactly as llama.cpp does."""
    app = make_app(vocab_file(name).path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TokenizeScreen)
        editor = screen.query_one("#tok-input", TextArea)
        for row in _rows(name):
            await _set_toggles(pilot, screen, add_special=row["add_special"], parse_special=row["parse_special"])
            editor.load_text(row["text"])
            await settle(app, pilot)
            assert list(app.ids) == row["ids"], (row["text"], row["add_special"], row["parse_special"])


async def test_selecting_a_token_shows_its_piece_and_bytes() -> None:
    """Moving the token cursor shows id, raw piece and hex bytes; enter jumps to the vocabulary."""
    app = make_app(vocab_file("qwen3-vocab").path, text="Hello the")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        view = app.screen.query_one("#tok-view", TokenView)
        view.focus()
        await pilot.press("home", "right")
        await settle(app, pilot)
        details = app.screen.query_one("#tok-details", TokenDetails)
        shown = dict(details.rows)
        assert shown["id"] == "279" and shown["piece"] == "Ġthe" and shown["bytes"].startswith("20 74 68 65")
        await pilot.press("enter")
        await settle(app, pilot)
        from tui_tok.ui.widgets.vocab_table import VocabTable

        table = app.screen.query_one("#vocab-table", VocabTable)
        assert int(table.ids[table.cursor]) == 279


async def test_long_text_edit_retokenized_exactly_around_it() -> None:
    """A long Qwen3 text is re-tokenized only around an edit, exactly (its pre-tokenizer has proven
    cuts: ``explore.edit``), so no provisional line-by-line result is needed."""
    from tui_tok import load_tokenizer

    rows = [r["text"] for r in conformance_rows("qwen3-vocab") if not r["add_special"]]
    text = "\n".join(rows) * 8
    assert len(text) > 8_000  # PROVISIONAL_CHARS
    app = make_app(vocab_file("qwen3-vocab").path, text=text)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TokenizeScreen)
        editor = screen.query_one("#tok-input", TextArea)
        editor.move_cursor((3, 0))
        editor.insert("Hello, world 🙂\n")
        await pilot.pause(0.6)  # past the confirmation delay
        await settle(app, pilot)
        tok = load_tokenizer(vocab_file("qwen3-vocab").path)
        assert list(app.ids) == tok.encode(editor.text, add_special=True)
        assert not screen.query_one("#tok-stats").has_class("-provisional")
        assert screen.spliced_shown >= 1
        assert screen.provisional_shown == 0
