"""The vocabulary view searches decoded text: regexes as substrings do, a text column for
byte-level vocabularies, ``#-1`` an id error (issue 27)."""

from __future__ import annotations

from textual.widgets import Input, Static
from ui_support import make_app, settle

from support import vocab_file
from tui_tok.ui.widgets.readout import Readout
from tui_tok.ui.widgets.vocab_table import VocabTable


async def _search(app, pilot, query: str) -> list[int]:  # type: ignore[no-untyped-def]
    app.screen.query_one("#vocab-search", Input).value = query
    await settle(app, pilot)
    return app.screen.query_one("#vocab-table", VocabTable).ids.tolist()


async def test_regex_on_decoded_text_with_a_text_column() -> None:
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f3")
        await settle(app, pilot)
        index = app.vocab_index
        assert index is not None
        box = app.screen.query_one("#vocab-search", Input)
        assert "decoded" in box.placeholder and "/regex/" in box.placeholder
        hello = index.pieces.index("Ġhello")
        assert await _search(app, pilot, "/^ hello$/") == [hello]
        assert hello in await _search(app, pilot, " hello")
        nihon = index.pieces.index("æĹ¥æľ¬")
        assert await _search(app, pilot, "/^日本$/") == [nihon]
        table = app.screen.query_one("#vocab-table", VocabTable)
        header = str(app.screen.query_one("#vocab-header", Static).render())
        assert header.split()[:4] == ["id", "piece", "text", "type"]
        row = table.row_text(nihon)
        assert "æĹ¥æľ¬" in row and "日本" in row
        assert header.index("text") == row.index("日本")
        assert await _search(app, pilot, "#-1") == []
        status = app.screen.query_one("#vocab-status", Readout)
        assert "no token #-1" in str(status.render()) and status.has_class("-error")


async def test_no_text_column_when_pieces_are_text() -> None:
    app = make_app(vocab_file("phi-3").path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f3")
        await settle(app, pilot)
        index = app.vocab_index
        assert index is not None
        assert await _search(app, pilot, "/^ the$/") == [index.pieces.index("▁the")]
        header = str(app.screen.query_one("#vocab-header", Static).render())
        assert header.split()[:3] == ["id", "piece", "type"]
