"""The token view and id strip repaint only changed rows: what they show must still be exactly
what a full repaint draws (the oracle), after every kind of edit and cursor move."""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets import TextArea

from tui_tok.ui.widgets.id_strip import IdStrip
from tui_tok.ui.widgets.token_view import TokenView
from support import vocab_file
from ui_support import make_app, settle

TEXT = "".join(f"line {i}: the quick brown fox, 日本語 {i * 37}\n" for i in range(30))


def _shown(widget: TokenView | IdStrip) -> list[list[tuple[str, object]]]:
    """The widget's rows as they are now (cached rows and repainted ones)."""
    lines = widget.render_lines(Region(0, 0, widget.outer_size.width, widget.outer_size.height))
    return [[(s.text, s.style) for s in line] for line in lines]


def _fresh(widget: TokenView | IdStrip) -> list[list[tuple[str, object]]]:
    """The same rows drawn from scratch."""
    widget.clear_rows()
    widget.refresh()
    return _shown(widget)


async def test_partial_repaints_match_full_repaints() -> None:
    app = make_app(vocab_file("qwen3-vocab").path, text=TEXT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        editor = screen.query_one("#tok-input", TextArea)
        view = screen.query_one(TokenView)
        ids = screen.query_one(IdStrip)
        edits = [
            lambda: editor.move_cursor((0, 0)),
            lambda: editor.insert("x"),  # top line: tokens and the ids of everything after shift
            lambda: editor.insert("yz "),
            lambda: editor.move_cursor((3, 5)),
            lambda: editor.insert("\n"),  # a line more: every row below moves down
            lambda: editor.insert("a" * 90),  # the line wraps once more
            lambda: editor.move_cursor((2, 0)),
            lambda: editor.delete((2, 0), (4, 0)),  # lines removed: rows move up
            lambda: editor.move_cursor((29, 3)),
            lambda: editor.insert("END"),  # near the end: only the last rows change
            lambda: view.action_move(-7),  # the token cursor alone moves (and the id strip's with it)
            lambda: view.action_move(40),
        ]
        for k, edit in enumerate(edits):
            edit()
            await settle(app, pilot)
            await pilot.pause()
            for widget in (view, ids):
                assert _shown(widget) == _fresh(widget), (k, type(widget).__name__)


async def test_editor_rows_from_its_cache_match_textarea_drawing() -> None:
    """The editor keeps drawn rows by content; after edits, cursor moves and selections its
    rows must be what TextArea draws with every cache emptied."""
    from tui_tok.ui.widgets.editor import Editor

    app = make_app(vocab_file("qwen3-vocab").path, text=TEXT.replace("fox,", "fox,\t(x)"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", Editor)
        steps = [
            lambda: editor.move_cursor((0, 0)),
            lambda: editor.insert("x"),
            lambda: editor.move_cursor((1, 3)),
            lambda: editor.insert("\n"),
            lambda: editor.move_cursor((0, 2), select=True),  # a selection over three lines
            lambda: editor.move_cursor((3, 4), select=True),  # now below the anchor: lines 0-1 unselected
            lambda: editor.move_cursor((4, 30)),  # next to a bracket: its partner is highlighted
            lambda: editor.insert("b" * 100),  # wraps
            lambda: editor.delete((0, 0), (2, 0)),
        ]
        for k, step in enumerate(steps):
            step()
            await settle(app, pilot)
            await pilot.pause()
            region = Region(0, 0, editor.outer_size.width, editor.outer_size.height)
            shown = [[(s.text, s.style) for s in line] for line in editor.render_lines(region)]
            editor._row_strips.clear()  # noqa: SLF001 - the oracle: nothing cached
            editor._line_cache.clear()  # noqa: SLF001
            editor.refresh()
            fresh = [[(s.text, s.style) for s in line] for line in editor.render_lines(region)]
            assert shown == fresh, k
