"""Pilot tests of what the views draw: every token shown whole, marks and visible forms never cut,
highlights on tokens that cover no cell of their own, views whole on small screens."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from ui_support import make_app, settle

from support import vocab_file
from tui_tok.ui.app import SAMPLE_TEXT
from tui_tok.ui.widgets.id_strip import IdStrip

JAPANESE = "私は東京に住んでいます。毎朝、電車で会社に行きます。昨日は雨が降りましたが、今日は晴れています。"


def _rows(widget) -> list[str]:  # type: ignore[no-untyped-def]
    """Every row the widget would draw (scrolled through), as text."""
    widget.scroll_to(y=0, animate=False, immediate=True)
    out = []
    for row in range(widget.virtual_size.height):
        strip = widget.build_row(row)
        assert strip.cell_length == widget.content_box.width
        out.append(strip.text)
    return out


@pytest.mark.parametrize("text", [SAMPLE_TEXT, JAPANESE, "a👨\u200d👩\u200d👧b " + "=" * 90])
async def test_pieces_show_every_token_whole(text: str) -> None:
    """^G (pieces, not ids) at 80 columns: every label is drawn, in order, none cut at a row's
    end; a wide piece counts its cells; a piece wider than the strip folds over rows."""
    app = make_app(vocab_file("qwen3-vocab").path, text=text)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+g")
        await settle(app, pilot)
        strip = app.screen.query_one("#tok-ids", IdStrip)
        assert strip.pieces is not None
        labels = [strip.pieces[int(i)] for i in strip.ids.tolist()]
        rows = _rows(strip)
        width = strip.content_box.width
        assert all(cell_len(row.rstrip(" ")) <= width for row in rows)
        assert "".join(rows).replace(" ", "") == "".join(labels).replace(" ", "")
        # each label that fits a row is on one row, whole
        whole = [label for label in labels if cell_len(label) <= width]
        assert all(any(label in row.split(" ") for row in rows) for label in whole)


async def test_one_vocabulary_of_marks() -> None:
    """Explain draws a chunk's newline and tab with the Tokens panel's marks (↵ →, not ⏎ \\t),
    and the stream view expands a tab to as many columns as the editor does."""
    from textual.widgets import Static

    from tui_tok.explore.display import NEWLINE_MARK, TAB_COLUMNS, TAB_MARK
    from tui_tok.ui.widgets.editor import Editor

    app = make_app(vocab_file("qwen3-vocab").path, text="a\n\tb c")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.screen.query_one("#tok-input", Editor).indent_width == TAB_COLUMNS
        await pilot.press("f8")
        await settle(app, pilot)
        shown = str(app.screen.query_one("#ex-text", Static).render())
        assert NEWLINE_MARK in shown and TAB_MARK in shown
        assert "⏎" not in shown and "\\t" not in shown
        await pilot.press("f2")
        await settle(app, pilot)
        await pilot.press("end")
        await settle(app, pilot)
        lines = str(app.screen.query_one("#stream-text", Static).render()).split("\n")
        assert lines[1] == " " * TAB_COLUMNS + "b c"


async def test_small_screen_shows_every_view_key_and_the_whole_readout() -> None:
    """80x24: the footer of every view names F1-F9 (F7 with a --compare file) inside the
    width; the tokenize readout keeps chars/token; the keys panel (F9) floats over the view
    instead of squeezing the text box; the token panel is wider on a wide terminal."""
    from textual.widgets._footer import FooterKey

    from tui_tok import read_gguf
    from tui_tok.ui.app import TuiTokApp
    from tui_tok.ui.widgets.readout import Readout
    from tui_tok.ui.widgets.token_details import TokenDetails

    gguf = read_gguf(vocab_file("qwen3-vocab").path)
    app = TuiTokApp(gguf, show_timings=False, compare=read_gguf(vocab_file("gpt-2").path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        for key in ("f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"):
            await pilot.press(key)
            await settle(app, pilot)
            keys = list(app.screen.query(FooterKey))
            shown = {k.key for k in keys}
            assert {f"f{i}" for i in range(1, 10)} <= shown, (key, shown)
            assert max(k.region.right for k in keys) <= 80
        await pilot.press("f1")
        await settle(app, pilot)
        stats = app.screen.query_one("#tok-stats", Readout)
        drawn = "".join(stats.render_line(y).text for y in range(stats.content_size.height))
        assert "chars/token" in drawn
        await pilot.press("f9")
        await settle(app, pilot)
        assert app.screen.query_one("#tok-input").content_size.width >= 30
    app = make_app(vocab_file("qwen3-vocab").path, text="Hello")
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(app, pilot)
        details = app.screen.query_one("#tok-details", TokenDetails)
        drawn = [details.render_line(y).text for y in range(details.content_size.height)]
        assert any("48 65 6c 6c 6f  (5 bytes)" in row for row in drawn)


async def test_tokens_panel_never_cuts_a_code() -> None:
    """80 columns: ``⟨200D⟩`` (a ZWJ drawn as its code) moves to the next row whole, whatever
    column it would start in; every character of the text is still drawn once."""
    import re

    from tui_tok.explore.display import shown_text
    from tui_tok.ui.widgets.token_view import TokenView

    text = "\n".join("a" * pad + "👨\u200d👩\u200d👧 " * 12 for pad in range(8))
    app = make_app(vocab_file("qwen3-vocab").path, text=text)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        view = app.screen.query_one("#tok-view", TokenView)
        rows = _rows(view)
        for row in rows:
            rest = re.sub(r"⟨[0-9A-F]{4}⟩", "", row)
            assert "⟨" not in rest and "⟩" not in rest, row
        assert "".join(r.rstrip(" ") for r in rows) == shown_text(text).replace(" ", "·")


@pytest.mark.parametrize(
    ("vocab", "text", "index", "cell"),
    [("phi-3", "Hi there", 0, "H"), ("llama-spm", "Hi there", 0, "H"), ("qwen3-vocab", "x 👋 y", 2, "👋")],
)
async def test_selected_token_without_a_cell_of_its_own_is_highlighted(
    vocab: str, text: str, index: int, cell: str
) -> None:
    """A selected BOS (``<s>``, no text) draws the character where it sits in its own style;
    a byte token inside one character (the second of 👋's on qwen3) draws that character."""
    from tui_tok.ui.widgets.token_view import TokenView

    app = make_app(vocab_file(vocab).path, text=text)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        view = app.screen.query_one("#tok-view", TokenView)
        view.focus()
        view.cursor = -1
        await settle(app, pilot)
        plain = [(seg.text, seg.style) for seg in view.build_row(0)]
        view.cursor = index
        await settle(app, pilot)
        lit = [(seg.text, seg.style) for seg in view.build_row(0)]
        assert plain != lit
        cursor_style = view.token_styles.of(
            int(view.token_layout.phases[index]), int(view.token_layout.kinds[index]), cursor=True
        )
        assert (cell, cursor_style) in lit
        shown = view.render_line(0)
        assert (cell, cursor_style) in [(seg.text, seg.style) for seg in shown]


async def test_compare_rows_wrap_together_and_name_the_text_difference(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """F7 at 80 columns: every drawn A row is followed by its B row, both as long and ending
    on a column's bar (Japanese and emoji pieces included); when only the added BOS differs, the view
    also says where the text itself first differs (here: nowhere)."""
    from textual.geometry import Region
    from textual.widgets import Static

    from tui_tok import read_gguf
    from tui_tok.gguf.writer import write_gguf
    from tui_tok.ui.app import TuiTokApp

    text = "Hello world, 日本語のテキスト 🙂👨\u200d👩\u200d👧 naïve café " * 3
    a = read_gguf(vocab_file("qwen3-vocab").path)
    app = TuiTokApp(a, text=text, show_timings=False, compare=read_gguf(vocab_file("gpt-2").path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("f7")
        await settle(app, pilot)
        static = app.screen.query_one("#cmp-rows", Static)
        size = static.size
        rows = [s.text for s in static.render_lines(Region(0, 0, size.width, size.height * 4))]
        drawn = [r for r in rows if r.startswith(("A ", "B ")) and "│" in r]
        assert len(drawn) >= 4
        for k in range(0, len(drawn), 2):
            ra, rb = drawn[k], drawn[k + 1]
            assert ra.startswith("A ") and rb.startswith("B "), (ra, rb)
            assert cell_len(ra.rstrip()) == cell_len(rb.rstrip()) and ra.rstrip().endswith("│"), (ra, rb)
    # the same vocabulary without its BOS: only the special differs
    spm = read_gguf(vocab_file("llama-spm").path)
    path = tmp_path / "no-bos.gguf"
    write_gguf(path, {**dict(spm.metadata), "tokenizer.ggml.add_bos_token": False})
    app = TuiTokApp(spm, text="Hello world", show_timings=False, compare=read_gguf(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        shown = str(app.screen.query_one("#cmp-rows", Static).render())
        assert "first difference at byte 0" in shown
        assert "only the added special tokens differ" in shown


async def test_diagnostics_enter_lands_on_the_template_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Enter on a template error opens the template as stored, numbered, at the error's line
    with its column marked; the value pane has the focus and PageDown pages through it."""
    from tui_tok import read_gguf
    from tui_tok.gguf.writer import write_gguf
    from tui_tok.ui.widgets.lines_view import LinesView

    g = read_gguf(vocab_file("qwen3-vocab").path)
    template = (
        "{%- for m in messages %}{{ m.content }}{%- endfor %}\n"
        "{%- if add_generation_prompt %}{{ 'x' }}{%- endif %}\n"
        "say {{ foo | nosuchfilter }} done\n" + "\n".join(f"line {i}" for i in range(60))
    )
    path = tmp_path / "bad-template.gguf"
    write_gguf(path, {**dict(g.metadata), "tokenizer.chat_template": template})
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("f6")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        detail = app.screen.query_one("#meta-detail", LinesView)
        assert app.focused is detail
        top = detail.scroll_offset.y
        shown = [detail.render_line(y).text for y in range(detail.size.height)]
        at = next(y for y, row in enumerate(shown) if "say {{ foo" in row)
        assert shown[at].lstrip().startswith("3 │ say {{ foo")
        caret = shown[at + 1]
        assert caret.rstrip().endswith("^") and caret.index("^") == shown[at].index("foo") + len("foo | ")
        assert top > 0 or at >= 2
        await pilot.press("pagedown")
        await settle(app, pilot)
        assert detail.scroll_offset.y > top


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_chat_notes_are_whole(size: tuple[int, int]) -> None:
    """The message table's notes wrap inside the table (``BOS text dropped: ...`` was cut at
    the right edge, also at 120x40): the table is never wider than its box."""
    from tui_tok.ui.widgets.chat_spans import MessageSpans

    app = make_app(vocab_file("phi-3").path)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press("f5")
        await settle(app, pilot)
        table = app.screen.query_one("#chat-spans", MessageSpans)
        notes = " ".join(table.get_row("total")[-1].plain.split())
        assert notes  # (phi-3: the template writes the BOS the vocabulary adds)
        assert table.virtual_size.width <= table.scrollable_content_region.width
