"""Issue 13, points 8-10 in the vocabulary, metadata and app chrome: wide pieces keep their
columns, the header follows the width, stale panels clear, small wording, narrow terminals,
checkboxes without colour, the remembered theme."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Input, Static
from ui_support import make_app, settle

from support import HAVE_SHARED, SHARED, SHARED_MISSING, vocab_file
from tui_tok.gguf.writer import write_gguf
from tui_tok.ui.screens.metadata import MetadataScreen
from tui_tok.ui.screens.vocab import VocabScreen
from tui_tok.ui.settings import load_settings, settings_path
from tui_tok.ui.widgets.check_box import CheckBox
from tui_tok.ui.widgets.lines_view import LinesView
from tui_tok.ui.widgets.readout import Readout
from tui_tok.ui.widgets.vocab_table import VocabTable

GEMMA4 = SHARED / "vocabs" / "ggml-vocab-gemma-4.gguf"


def _wide_file(tmp_path: Path) -> Path:
    """A small BPE vocab whose pieces are wide (CJK) and fullwidth (｜) characters."""
    path = tmp_path / "wide.gguf"
    tokens = ["a", "b", "日", "本", "の", "日本", "日本の", "<｜end｜>", "ab"]
    write_gguf(path, {"general.architecture": "llama", "tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "default",
                      "tokenizer.ggml.tokens": tokens, "tokenizer.ggml.token_type": [1] * 7 + [3, 1],
                      "tokenizer.ggml.merges": ["a b", "日 本", "日本 の"]})  # fmt: skip
    return path


async def _search(app, pilot, query: str) -> list[int]:  # type: ignore[no-untyped-def]
    app.screen.query_one("#vocab-search", Input).value = query
    await settle(app, pilot)
    return app.screen.query_one("#vocab-table", VocabTable).ids.tolist()


def _screen_line(table: VocabTable, y: int) -> str:
    return table.render_line(y).text


def _header(screen: VocabScreen) -> str:
    return str(screen.query_one("#vocab-header", Static).render())


async def _open_vocab(app, pilot) -> VocabScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("f3")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, VocabScreen)
    return screen


async def test_wide_pieces_are_padded_by_cells(tmp_path: Path) -> None:
    """Every row is as wide as the header in cells and ends with the bytes column, wide or not."""
    app = make_app(_wide_file(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await _open_vocab(app, pilot)
        table = screen.query_one(VocabTable)
        assert await _search(app, pilot, "") == list(range(9))
        header = _header(screen).rstrip()
        for y, token_bytes in enumerate([1, 1, 3, 3, 3, 6, 9, 11, 2]):
            line = _screen_line(table, y).rstrip()
            assert cell_len(line) == cell_len(header), line
            assert line.endswith(f"  {token_bytes}"), line
        assert _screen_line(table, 6).startswith("       6  日本の  ")
        assert "<｜end｜>" in _screen_line(table, 7) and _screen_line(table, 7).rstrip().endswith(
            "control                   -      11"
        )


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
async def test_gemma4_row_76444_keeps_its_bytes_column() -> None:
    """The row of the issue: ``76444 日本の normal 190839`` lost its bytes column (9)."""
    app = make_app(GEMMA4)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_vocab(app, pilot)
        assert await _search(app, pilot, "#76444") == [76444]
        line = _screen_line(screen.query_one(VocabTable), 0).rstrip()
        assert line.split() == ["76444", "日本の", "normal", "190839", "9"]
        assert cell_len(line) == cell_len(_header(screen).rstrip())


async def test_header_follows_the_width_and_counts_agree() -> None:
    """The header was laid out again only when the search changed; "1 id matches"."""
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_vocab(app, pilot)
        table = screen.query_one(VocabTable)
        assert await _search(app, pilot, "#279") == [279]
        status = str(screen.query_one("#vocab-status", Readout).content)
        assert status == "1 id match of 151,669"
        wide = _header(screen)
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        narrow = _header(screen)
        assert narrow != wide and cell_len(narrow.rstrip()) == cell_len(_screen_line(table, 0).rstrip())
        assert narrow.rstrip().endswith("merge rank   bytes") and cell_len(narrow.rstrip()) <= table.size.width
        await _search(app, pilot, "/^Ġthe$/")
        assert str(screen.query_one("#vocab-status", Readout).content) == "1 regex match of 151,669"
        await _search(app, pilot, "/ing$/")
        assert " regex matches of 151,669" in str(screen.query_one("#vocab-status", Readout).content)


async def test_regex_search_in_the_view_finds_decoded_text_and_reports_columns() -> None:
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_vocab(app, pilot)
        index = app.vocab_index
        assert index is not None
        found = await _search(app, pilot, "/日本/")
        assert index.pieces.index("æĹ¥æľ¬") in found
        assert await _search(app, pilot, "/(/") == []
        status = screen.query_one("#vocab-status", Readout)
        assert str(status.content) == "bad regex: missing ) at column 3" and status.has_class("-error")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_narrow_terminal_shows_every_vocabulary_column(size: tuple[int, int]) -> None:
    """At 80x24 the token panel hid the rank and bytes columns: below 100 columns it goes under the table."""
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=size) as pilot:
        screen = await _open_vocab(app, pilot)
        table = screen.query_one(VocabTable)
        details = screen.query_one("#vocab-details")
        assert await _search(app, pilot, "#279") == [279]
        line = _screen_line(table, 0).rstrip()
        assert line.split() == ["279", "Ġthe", "·the", "normal", "23", "4"]  # piece, then its decoded text
        assert table.region.right <= size[0] and details.region.width > 0 and details.region.height > 0
        assert not table.region.overlaps(details.region)
        assert _header(screen).rstrip().endswith("bytes")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_narrow_terminal_shows_the_metadata_value_column(size: tuple[int, int]) -> None:
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press("f4")
        await settle(app, pilot)
        screen = app.screen
        table = screen.query_one("#meta-table", DataTable)
        detail = screen.query_one("#meta-detail", LinesView)
        value_x = sum(col.get_render_width(table) for col in list(table.columns.values())[:2])
        assert table.region.x + value_x + 8 <= table.region.right  # the value column starts on screen
        assert not table.region.overlaps(detail.region) and detail.region.height >= 5


async def test_metadata_filter_matching_nothing_clears_the_value_pane() -> None:
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f4")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, MetadataScreen)
        box = screen.query_one("#meta-search", Input)
        box.focus()
        await pilot.press(*"quantiz")  # one key matches on the way, then none
        await pilot.press(*"zzzq")
        await settle(app, pilot)
        detail = screen.query_one("#meta-detail", LinesView)
        assert screen.shown == [] and detail.count == 0 and "quantiz" not in str(detail.border_title)
        assert str(detail.border_title) == "no key matches"


async def test_metadata_counts_have_separators() -> None:
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f4")
        await settle(app, pilot)
        rows = {row.key: row for row in app.screen.shown}
        assert rows["tokenizer.ggml.tokens"].summary.endswith("… (151,669 items)")


@pytest.mark.parametrize("view", ["f1", "f2", "f3", "f4"])
async def test_footer_names_each_key_once(view: str) -> None:
    """Two footer entries were both called "Keys" (the metadata table's and the help panel's)."""
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press(view)
        await settle(app, pilot)
        # the footer shows one entry per action (its first key)
        actions = {
            b.binding.action: b.binding.description for b in app.screen.active_bindings.values() if b.binding.show
        }
        shown = list(actions.values())
        assert shown.count("Keys") == 1 and len(shown) == len(set(shown)), shown


async def test_checkbox_mark_differs_on_and_off_without_colour() -> None:
    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield CheckBox("parse special", False, id="cb")

    app = One()
    async with app.run_test(size=(40, 3)) as pilot:
        box = app.query_one(CheckBox)
        off = box.render().plain
        box.value = True
        await pilot.pause()
        on = box.render().plain
        assert off.startswith("▐ ▌") and on.startswith("▐X▌") and len(on) == len(off)


async def test_theme_is_remembered_between_runs() -> None:
    path = vocab_file("qwen3-vocab").path
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.theme != "nord"
        app.theme = "nord"
        await pilot.pause()
    assert load_settings() == {"theme": "nord"} and settings_path().is_file()
    again = make_app(path)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert again.theme == "nord"
    settings_path().write_text("{not json")
    broken = make_app(path)
    async with broken.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert broken.theme == "textual-dark"
