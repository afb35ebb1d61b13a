"""Keys and pastes of one terminal read reach the box the cursor is in, in the order typed: a
paste after alt+x (which clears the box) is not cleared by it, and keys typed right after Tab
go to the box Tab moved to, not the one it left."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Input, TextArea
from ui_support import make_app, settle

from support import ASSETS
from tui_tok.ui.fast_paste import END, START, BulkPasteParser
from tui_tok.ui.textual_compat import let_out_held_keys
from tui_tok.ui.widgets.chat_messages import ChatMessages

QWEN3 = ASSETS / "qwen3-vocab.gguf"
SIZE = (120, 40)


def read(app: App[object], data: str) -> None:
    """Queue what the terminal parser makes of ``data``, one read, at once (as the Linux driver
    does), then what it still holds as its ESC timeout would."""
    parser = BulkPasteParser()
    driver = app._driver  # where the terminal's keys come from
    assert driver is not None
    for event in [*parser.feed(data), *let_out_held_keys(parser)]:
        event.set_sender(app)
        driver.send_message(event)


async def test_a_paste_after_alt_x_in_one_read_stays() -> None:
    app = make_app(QWEN3, text="typed")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", TextArea)
        assert app.focused is editor
        read(app, "\x1bx" + START + "pasted" + END)
        await settle(app, pilot)
        assert editor.text == "pasted"
        read(app, "\x01\x1bxab\t" + START + "P" + END)  # ctrl+a, alt+x, "ab", Tab (a tab here), a paste
        await settle(app, pilot)
        assert editor.text == "ab\tP"
        assert list(app.ids) == app.tokenizer.encode("ab\tP")  # type: ignore[union-attr]


async def test_select_all_and_clear_act_after_the_keys_typed_before_them() -> None:
    """ctrl+a and alt+x are the app's priority keys: they ran before the box had typed the keys read
    with them (``xy`` ctrl+a ``z`` gave ``xyz``)."""
    app = make_app(QWEN3, text="")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", TextArea)
        for data, text in (("xy\x01z", "z"), ("ab\x1bx", ""), ("ab\x1bxcd", "cd")):
            read(app, data)
            await settle(app, pilot)
            assert editor.text == text, repr(data)
        await pilot.press("f3")  # the vocabulary table: what is typed on it goes to the search box (an Input)
        await settle(app, pilot)
        search = app.screen.query_one("#vocab-search", Input)
        read(app, "ab\x1bxcd\x01e")
        await settle(app, pilot)
        assert app.focused is search and search.value == "e"


async def test_ctrl_a_then_ctrl_c_in_one_read_copies_the_text() -> None:
    """ctrl+c copies the box's selection, else the view's ids: decided after ctrl+a has selected."""
    app = make_app(QWEN3, text="")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        read(app, "some text\x01\x03")
        await settle(app, pilot)
        assert app.clipboard == "some text"
        read(app, "\x1b[C\x03")  # right arrow: no selection, the view's ids
        await settle(app, pilot)
        assert app.clipboard == str(list(app.ids))


async def test_a_boxs_own_keys_act_in_order_with_the_characters_around_them() -> None:
    """Backspace, arrows, ctrl+w are the box's bindings, which Textual runs once the key has bubbled
    up to the app: by then the box had typed the characters after them (``abc`` backspace ``d``
    gave ``abc``). A busy UI thread (a long text) makes a burst of any typing."""
    app = make_app(QWEN3, text="")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", TextArea)
        for data, text in (("abc\x7fd", "abd"), ("\x01\x1bxabc\x1b[Dd", "abdc"), ("\x01\x1bxab cd\x17e", "ab e")):
            read(app, data)
            await settle(app, pilot)
            assert editor.text == text, repr(data)
        await pilot.press("f5")
        await settle(app, pilot)
        message = app.screen.query_one(ChatMessages).editors[-1]
        assert app.focused is message
        read(app, "\x01\x1bxxy\x7fz\x1b[Dw")
        await settle(app, pilot)
        assert message.text == "xwz"
        tools = app.screen.query_one("#chat-tools", TextArea)
        tools.focus()
        await pilot.pause()
        read(app, "[x\x7f]")
        await settle(app, pilot)
        assert tools.text == "[]"


async def _chat(app, pilot) -> list[TextArea]:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("f5")
    await settle(app, pilot)
    editors: list[TextArea] = list(app.screen.query_one(ChatMessages).editors)
    editors[1].focus()
    await pilot.pause()
    for editor in editors:
        editor.move_cursor((0, 0))
    return editors


async def test_keys_right_after_tab_go_to_the_next_box() -> None:
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        editors = await _chat(app, pilot)
        before = [e.text for e in editors]
        read(app, "\tabc")
        await settle(app, pilot)
        assert app.focused is editors[2]
        assert [e.text for e in editors] == [before[0], before[1], "abc" + before[2], before[3]]
        read(app, "\x1b[Zxy")  # shift+Tab, "xy"
        await settle(app, pilot)
        assert app.focused is editors[1]
        assert [e.text for e in editors] == [before[0], "xy" + before[1], "abc" + before[2], before[3]]


async def test_tab_in_the_tokenize_box_still_types_a_tab() -> None:
    app = make_app(QWEN3, text="")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", TextArea)
        read(app, "a\tb")
        await settle(app, pilot)
        assert app.focused is editor and editor.text == "a\tb"
