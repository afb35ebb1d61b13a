"""Typing is safe: no printable key quits, what is typed on a table goes to its search box, and a
burst of keys (one terminal read) loses nothing (issue 27)."""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.widgets import Input, TextArea
from ui_support import make_app, settle

from support import vocab_file


def burst(app: App[object], keys: list[str]) -> None:
    """Queue ``keys`` at once, as a terminal read of several keys does (Pilot.press waits between
    keys for the app to go idle, which hides what a burst loses)."""
    driver = app._driver  # where the terminal's keys come from
    assert driver is not None
    for key in keys:
        character = {"space": " "}.get(key, key if len(key) == 1 else None)
        event = events.Key(key, character)
        event.set_sender(app)
        driver.send_message(event)


async def test_typing_quote_after_a_jump_to_the_vocabulary_searches() -> None:
    """'show in vocabulary' leaves the table focused and the search empty: ``quote`` quit at its ``q``."""
    app = make_app(vocab_file("qwen3-vocab").path, text="hello")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.show_token_in_vocab(14990)
        await settle(app, pilot)
        assert app.focused is not None and app.focused.id == "vocab-table"
        burst(app, list("quote"))
        await settle(app, pilot)
        assert app.is_running
        assert app.screen.query_one("#vocab-search", Input).value == "quote"
        assert app.focused.id == "vocab-search"
        for key in ("1", "q", "question_mark"):  # the app's one-key bindings give way on the table too
            await pilot.press("ctrl+l", key)
            assert app.is_running and app.current_mode == "vocab"
        assert app.screen.query_one("#vocab-search", Input).value == "quote1q?"


async def test_typing_on_the_metadata_table_filters() -> None:
    """F4 arrives on the table, as F3 does: typing ``merges`` there did nothing."""
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("f3")
        await settle(app, pilot)
        assert app.focused is not None and app.focused.id == "vocab-table"
        await pilot.press("f4")
        await settle(app, pilot)
        assert app.focused is not None and app.focused.id == "meta-table"
        await pilot.press(*"merges")
        await settle(app, pilot)
        assert app.screen.query_one("#meta-search", Input).value == "merges"
        keys = [row.key for row in app.screen.shown]  # type: ignore[attr-defined]
        assert "tokenizer.ggml.merges" in keys and len(keys) < len(app.screen.rows)  # type: ignore[attr-defined]


async def test_a_burst_of_keys_in_metadata_loses_nothing() -> None:
    """``ctrl+f ctrl+u text`` in one read: the keys went to the table (the focus moved a turn
    later), and ctrl+u, run once it had bubbled to the app, deleted what came after it."""
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("f4")
        await settle(app, pilot)
        box = app.screen.query_one("#meta-search", Input)
        box.value = "old"
        await settle(app, pilot)
        app.screen.set_focus(app.screen.query_one("#meta-table"))
        await settle(app, pilot)
        burst(app, ["ctrl+f", "ctrl+u", *"text"])
        await settle(app, pilot)
        assert box.value == "text"
        burst(app, ["ctrl+l", *"ab", "ctrl+w", "c"])  # from the table: typed into the box, in order
        await settle(app, pilot)
        assert box.value == "c"


async def test_ctrl_q_quits() -> None:
    app = make_app(vocab_file("qwen3-vocab").path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("escape", "q")  # the tokens view: no text box focused, still no quit
        assert app.is_running
        await pilot.press("ctrl+q")
        assert not app.is_running


async def test_home_and_end_move_to_the_line_s_ends_in_every_editor() -> None:
    """End goes to the line's end and Home to its start, in the Tokenize editor (whose exact
    document replaces the one TextArea's navigator was made with: End stayed at column 0) and in
    the Chat view's template editor."""
    app = make_app(vocab_file("qwen3-vocab").path, text="hello world\nsecond")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", TextArea)
        editor.focus()
        await pilot.press("end", "Y", "home", "X", "down", "end", "Z")
        await settle(app, pilot)
        assert editor.text == "Xhello worldY\nsecondZ"
        await pilot.press("f5")
        await settle(app, pilot)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        source = app.screen.query_one("#chat-source", TextArea)
        assert app.focused is source
        first = source.text.split("\n", 1)[0]
        await pilot.press("end", "Q")
        await settle(app, pilot)
        assert source.text.split("\n", 1)[0] == first + "Q"
