"""Pilot tests of the vocabulary, stream and metadata views, and of broken files."""

from __future__ import annotations

from pathlib import Path

import pytest
import regex
from textual.widgets import Input
from ui_support import make_app, settle

from support import vocab_file
from tui_tok.errors import GGUFFormatError
from tui_tok.explore.display import NULL_PIECE, display_piece
from tui_tok.explore.layout import KIND_NAMES
from tui_tok.explore.vocab_index import SPACE_FOLD
from tui_tok.gguf.writer import write_gguf
from tui_tok.ui.screens.stream import StreamScreen
from tui_tok.ui.widgets.id_strip import IdStrip
from tui_tok.ui.widgets.readout import Readout
from tui_tok.ui.widgets.token_details import TokenDetails
from tui_tok.ui.widgets.token_view import TokenView
from tui_tok.ui.widgets.tokenizer_status import TokenizerStatus
from tui_tok.ui.widgets.vocab_table import VocabTable


async def _search(app, pilot, query: str) -> list[int]:  # type: ignore[no-untyped-def]
    box = app.screen.query_one("#vocab-search", Input)
    box.value = query
    await settle(app, pilot)
    return app.screen.query_one("#vocab-table", VocabTable).ids.tolist()


async def test_vocabulary_search_by_substring_regex_and_id() -> None:
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f3")
        await settle(app, pilot)
        index = app.vocab_index
        assert index is not None
        assert len(await _search(app, pilot, "")) == index.n_tokens
        # Ġ is a space marker; lower-case queries ignore case
        found = await _search(app, pilot, "Ġthe")
        assert found == [
            i for i, p in enumerate(index.pieces) if " the" in display_piece(p).translate(SPACE_FOLD).lower()
        ]
        rx = regex.compile(r"^Ġthe[a-z]$")
        assert await _search(app, pilot, "/^Ġthe[a-z]$/") == [
            i for i, p in enumerate(index.pieces) if rx.search(display_piece(p))
        ]
        assert await _search(app, pilot, "#151643") == [151643]
        # typing into the box works too
        box = app.screen.query_one("#vocab-search", Input)
        box.value = ""
        box.focus()
        for key in "#279":
            await pilot.press(key)
        await settle(app, pilot)
        assert app.screen.query_one("#vocab-table", VocabTable).ids.tolist() == [279]


async def test_stream_step_shows_held_back_bytes() -> None:
    """🙂 in phi-3 is four byte-fallback tokens: 1, 2, 3 bytes are held, then it is emitted."""
    app = make_app(vocab_file("phi-3").path, text="a🙂")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+b")  # no BOS
        await settle(app, pilot)
        await pilot.press("f2")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, StreamScreen) and screen.trace is not None
        emoji = "🙂".encode()
        held = []
        for _ in range(len(screen.trace)):
            await pilot.press("right")
            await pilot.pause()
            held.append(screen.trace.pending[screen.step])
        assert held[-4:] == [emoji[:1], emoji[:2], emoji[:3], b""]
        assert screen.has_class("-holding") is False
        assert screen.trace.text_after(screen.step).endswith("🙂")
        await pilot.press("left")
        await pilot.pause()
        assert screen.has_class("-holding") and "3 of 4 bytes" in str(screen.query_one("#stream-pending").render())


def _broken_file(tmp_path: Path, **overrides: object) -> Path:
    meta = {
        "general.architecture": "llama",
        "tokenizer.ggml.model": "gpt2",
        "tokenizer.ggml.pre": "no-such-pre",
        "tokenizer.ggml.tokens": ["a", "b", "ab", "<s>"],
        "tokenizer.ggml.merges": ["a b"],
    }
    meta.update(overrides)
    path = tmp_path / "broken.gguf"
    write_gguf(path, meta)
    return path


@pytest.mark.parametrize("overrides", [{}, {"tokenizer.ggml.model": "no-such-model"}])
async def test_broken_tokenizer_shows_error_but_browses(tmp_path: Path, overrides: dict) -> None:
    app = make_app(_broken_file(tmp_path, **overrides), text="ab")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert app.tokenizer is None and app.tokenizer_error
        status = app.screen.query_one(TokenizerStatus)
        assert status.has_class("-error")
        assert "no-such" in str(status.query_one("#status-text").render())
        await pilot.press("f3")
        await settle(app, pilot)
        assert await _search(app, pilot, "a") == [0, 2]
        await pilot.press("f4")
        await settle(app, pilot)
        await pilot.press("f2")
        await settle(app, pilot)
        assert app.screen.query_one(TokenizerStatus).has_class("-error")


def test_not_gguf_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """(Inside the explorer, which paints first: test_app_cli.py.)"""
    bad = tmp_path / "bad.gguf"
    bad.write_text("this is not a GGUF file at all\n")
    from tui_tok.ui.app import open_model

    with pytest.raises(GGUFFormatError):
        open_model(str(bad))
    from tui_tok.cli import main

    assert main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.gguf" in err


async def test_metadata_filter_and_full_array() -> None:
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f4")
        await pilot.pause()
        box = app.screen.query_one("#meta-search", Input)
        box.value = "tokens"
        await pilot.pause()
        from tui_tok.ui.widgets.lines_view import LinesView

        detail = app.screen.query_one("#meta-detail", LinesView)
        assert detail.count == 151669 and detail.line_of(279) == "   279  'Ġthe'"


async def test_search_box_typing_long_query_scrolls_and_searches() -> None:
    """The search box (its virtual size repaints instead of laying out the screen) still keeps
    the cursor in view when the query is wider than the box, and the typed query is searched."""
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("f3")
        await settle(app, pilot)
        box = app.screen.query_one("#vocab-search", Input)
        box.focus()
        query = "/" + "(?:ab)?" * 12 + "the/"
        await pilot.press(*query)
        await settle(app, pilot)
        assert box.value == query
        assert box.scroll_x > 0 and box.virtual_size.width > box.content_region.width
        index = app.vocab_index
        assert index is not None
        found = app.screen.query_one("#vocab-table", VocabTable).ids.tolist()
        pattern = regex.compile(query[1:-1])
        assert found and all(
            pattern.search(index.pieces[i].replace("Ġ", " ")) or pattern.search(index.pieces[i]) for i in found[:50]
        )


async def test_null_token_ids_from_a_vocab_without_unknown_token(tmp_path: Path) -> None:
    """A WordPiece vocab with no [UNK]: llama.cpp emits id -1 for words no piece covers. Every
    view shows those tokens (kind unknown, no piece) and nothing crashes: pieces instead of ids,
    the selected token's details, the stream replay."""
    path = tmp_path / "no-unk.gguf"
    write_gguf(path, {"general.architecture": "bert", "tokenizer.ggml.model": "bert",
                      "tokenizer.ggml.tokens": ["[PAD]", "\u2581a", "b", "[CLS]", "[SEP]"],
                      "tokenizer.ggml.bos_token_id": 3, "tokenizer.ggml.seperator_token_id": 4})  # fmt: skip
    app = make_app(path, text="a zzz ab")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert app.tokenizer is not None and app.tokenizer_error is None
        assert app.ids == (3, 1, -1, 1, 2, 4)
        screen = app.screen
        layout = screen.query_one("#tok-view").token_layout
        assert [KIND_NAMES[k] for k in layout.kinds.tolist()][1:3] == ["normal", "unknown"]
        await pilot.press("ctrl+g")  # pieces instead of ids
        await settle(app, pilot)
        strip = screen.query_one("#tok-ids", IdStrip)
        assert strip.pieces is not None and strip.pieces[-1] == NULL_PIECE
        screen.query_one("#tok-view", TokenView).focus()
        rows: dict[str, str] = {}
        for _ in range(6):  # walk over every token, the null one included
            await pilot.press("right")
            await settle(app, pilot)
            rows = dict(screen.query_one("#tok-details", TokenDetails).rows)
            if rows.get("id") == "-1":
                break
        assert rows["id"] == "-1" and rows["kind"] == "unknown" and "no token" in rows["piece"]
        await pilot.press("f2")
        await settle(app, pilot)
        stream = app.screen
        assert isinstance(stream, StreamScreen) and stream.trace is not None
        assert stream.trace.pieces[2] == b"" and stream.trace.text_after(len(stream.trace) - 1).endswith("[SEP]")
        for _ in range(3):  # onto the null token
            await pilot.press("right")
            await pilot.pause()
        assert stream.step == 2 and f"piece “{NULL_PIECE}”" in str(stream.query_one("#stream-token", Readout).content)
        for _ in range(len(stream.trace)):
            await pilot.press("right")
            await pilot.pause()


async def test_a_vocab_missing_its_bos_still_tokenizes_with_add_special_off(tmp_path: Path) -> None:
    """llama.cpp asserts when a vocab wants a BOS it lacks: the view says so while add special is
    on, and the tokenizer (which the app built) tokenizes the text once it is off."""
    path = tmp_path / "no-bos.gguf"
    write_gguf(path, {"general.architecture": "bert", "tokenizer.ggml.model": "bert",
                      "tokenizer.ggml.tokens": ["[PAD]", "\u2581a", "b", "[UNK]"],
                      "tokenizer.ggml.unknown_token_id": 3})  # fmt: skip
    app = make_app(path, text="a b zz")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert app.tokenizer is not None and app.tokenizer_error is None
        stats = app.screen.query_one("#tok-stats", Readout)
        assert "cannot tokenize" in str(stats.content) and "BOS" in str(stats.content)
        await pilot.press("ctrl+b")
        await settle(app, pilot)
        assert app.ids == (1, 3, 3)
        assert "cannot tokenize" not in str(stats.content)
