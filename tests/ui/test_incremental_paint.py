"""The token view and id strip repaint only changed rows: what they show must still be exactly
what a full repaint draws (the oracle), after every kind of edit and cursor move."""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets import TextArea
from ui_support import make_app, settle

from support import vocab_file
from tui_tok.ui.widgets.id_strip import IdStrip
from tui_tok.ui.widgets.token_view import TokenView

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
            editor._row_strips.clear()  # the oracle: nothing cached
            editor._line_cache.clear()
            editor.refresh()
            fresh = [[(s.text, s.style) for s in line] for line in editor.render_lines(region)]
            assert shown == fresh, k


async def test_readouts_repainting_changed_rows_match_a_full_repaint() -> None:
    """The stats line and the token details repaint only the rows whose text changed (and the
    details keep each rendered label/value pair); what they show must be what they draw from
    scratch, as the selected token moves and changes."""
    from tui_tok.ui.widgets.readout import Readout
    from tui_tok.ui.widgets.token_details import TokenDetails

    app = make_app(vocab_file("qwen3-vocab").path, text=TEXT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        editor = screen.query_one("#tok-input", TextArea)
        stats = screen.query_one("#tok-stats", Readout)
        details = screen.query_one("#tok-details", TokenDetails)
        steps = [
            lambda: editor.move_cursor((0, 2)),
            lambda: editor.insert("q"),  # same line, another token under the cursor
            lambda: editor.move_cursor((5, 12)),  # another token: most detail rows change
            lambda: editor.insert("日本語日本語日本語 " * 4),  # a long piece: its rows wrap
            lambda: editor.move_cursor((5, 0)),
            lambda: editor.delete((0, 0), (9, 0)),  # far fewer tokens: the counts change width
        ]
        for k, step in enumerate(steps):
            step()
            await settle(app, pilot)
            await pilot.pause()
            for widget in (stats, details):
                region = Region(0, 0, widget.outer_size.width, widget.outer_size.height)
                shown = [[(s.text, s.style) for s in line] for line in widget.render_lines(region)]
                widget._strips_key = None  # the oracle: rendered again from its content
                getattr(widget, "_row_strips", {}).clear()  # the details' rendered pairs too
                widget.refresh()
                fresh = [[(s.text, s.style) for s in line] for line in widget.render_lines(region)]
                assert shown == fresh, (k, widget.id)


async def test_an_edit_is_drawn_in_a_frame_composed_inside_the_edit() -> None:
    """``paint_now``: once ``insert`` returns, the token view and the editor have already been
    drawn with the new text, without waiting for the screen's frame timer; a key that the
    screen must lay out for (a toggle) still paints through the timer, and both end right."""
    from tui_tok.ui.widgets.editor import Editor

    app = make_app(vocab_file("qwen3-vocab").path, text=TEXT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        editor = screen.query_one("#tok-input", Editor)
        view = screen.query_one(TokenView)
        editor.move_cursor((0, 0))
        editor.insert("W")  # the first edit lays the screen out once (scrollbars settle): by the timer
        await settle(app, pilot)
        for text in ("Z", "zz ", "\n"):
            before = view.painted_at
            editor.insert(text)
            assert view.painted_at > before  # drawn before any await: inside the edit
            assert screen.last_result_at <= view.painted_at
            top = view.render_lines(Region(0, 1, view.outer_size.width, 1))[0]  # row 0 is the border
            assert editor.text.split("\n")[0][:10].replace(" ", "·") in top.text
        await pilot.press("ctrl+o")  # whitespace off: a style change, painted by the timer
        await settle(app, pilot)
        for widget in (view, screen.query_one(IdStrip)):
            assert _shown(widget) == _fresh(widget)


async def test_a_burst_of_keys_is_drawn_by_the_timer_not_once_per_key(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Keys queued behind an edit (a burst, a paste sent as keys) are not each given a frame of
    their own: ``paint_now`` leaves them to the frame timer, and the result is still exact."""
    from textual import events

    import tui_tok.ui.screens.tokenize as tokenize_screen

    painted: list[bool] = []
    real = tokenize_screen.paint_now
    monkeypatch.setattr(tokenize_screen, "paint_now", lambda screen: painted.append(real(screen)) or painted[-1])
    app = make_app(vocab_file("qwen3-vocab").path, text=TEXT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", TextArea)
        burst = "the quick brown fox jumps "
        for ch in burst:
            app.post_message(events.Key("space" if ch == " " else ch, ch))
        while len(editor.text) < len(TEXT) + len(burst):
            await pilot.pause(0.01)
        await settle(app, pilot)
        assert len(painted) == len(burst)
        assert painted.count(True) <= 3  # the last key or two of the burst at most
        assert app.ids == tuple(app.tokenizer.encode(editor.text))
        view = app.screen.query_one(TokenView)
        assert _shown(view) == _fresh(view)


async def test_a_search_result_is_drawn_in_a_frame_composed_when_it_arrives(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``paint_now`` for the vocabulary: when the screen has taken a search result, the table has
    already been drawn with it (no wait for the frame timer), showing the first hit's id. The
    first result changes the header (a layout: painted by the timer); the others, each more than
    a screenful, change only rows (the table never shows a horizontal scrollbar to toggle)."""
    from textual.widgets import Input

    from tui_tok.ui.screens.vocab import VocabScreen
    from tui_tok.ui.widgets.vocab_table import VocabTable

    drawn: list[tuple[bool, str, int]] = []
    real = VocabScreen.on_vocab_screen_searched

    def handler(self: VocabScreen, message: VocabScreen.Searched) -> None:
        real(self, message)
        if message.generation == self._generation and self.last_result is not None and len(self.last_result.ids):
            table = self.query_one(VocabTable)
            inside = table.painted_at >= self.last_result_at  # before render_lines below stamps it again
            top = table.render_lines(Region(0, 0, table.outer_size.width, 1))[0].text
            drawn.append((inside, top, int(self.last_result.ids[0])))

    monkeypatch.setattr(VocabScreen, "on_vocab_screen_searched", handler)
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f3")
        while app.vocab_index is None:
            await pilot.pause(0.01)
        await settle(app, pilot)
        box = app.screen.query_one("#vocab-search", Input)
        for query in ("Ġthe", "/ing$/", "/^Ġ[a-z]+ed$/", "Ġa", "/^Ġ[A-Z]/"):
            box.value = query
            await settle(app, pilot)
    drawn = drawn[-5:]  # the opening empty query's result came first
    assert len(drawn) == 5
    assert all(top.split()[0] == str(first) for _, top, first in drawn)
    assert [inside for inside, _, _ in drawn[1:]] == [True] * 4
