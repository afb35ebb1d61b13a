"""Editing a conversation in the Chat view (F5): tool calls and tool results, undo of a removal,
Tab through every control, select-all and clear in every kind of text box, the copy key in the
footer. The prompt is checked against ``explore.chat.prompt.chat_prompt`` on the same messages."""

from __future__ import annotations

import json

from textual.widgets import Input, Static, TextArea
from ui_support import answer_path_prompt, make_app, settle

from support import ASSETS
from tui_tok.explore.chat.prompt import chat_prompt
from tui_tok.explore.chat.render import templates_of
from tui_tok.ui.app import TuiTokApp
from tui_tok.ui.screens.chat import ChatScreen
from tui_tok.ui.widgets.chat_messages import ChatMessages
from tui_tok.ui.widgets.chat_tool_fields import ToolCallRow, ToolResultRow
from tui_tok.ui.widgets.footer import Footer

QWEN3 = ASSETS / "qwen3-vocab.gguf"
SIZE = (130, 40)
WEATHER = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
    {"role": "tool", "content": "20 C", "tool_call_id": "call_1", "name": "get_weather"},
]  # fmt: skip
"""The conversation the keys below type (``--messages`` form)."""


async def _open(app: TuiTokApp, pilot) -> ChatScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("f5")
    await settle(app, pilot)
    assert isinstance(app.screen, ChatScreen)
    return app.screen


async def _load(app: TuiTokApp, pilot, screen: ChatScreen, messages: list[dict]) -> ChatMessages:  # type: ignore[no-untyped-def, type-arg]
    chat = screen.query_one("#chat-messages", ChatMessages)
    boxes, _notes = chat.prepare(messages)
    await chat.replace(boxes)
    await settle(app, pilot)
    return chat


async def _type_into(pilot, box: Input | TextArea, text: str) -> None:  # type: ignore[no-untyped-def]
    box.focus()
    await pilot.pause()
    await pilot.press(*text)


async def test_tool_calls_typed_in_the_fields_reach_the_prompt_of_both_runtimes() -> None:
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        chat = await _load(app, pilot, screen, [{"role": "user", "content": "Weather in Paris?"}])
        chat.editors[0].focus()
        await pilot.press("ctrl+n")  # after a user message: an assistant message, focused
        await settle(app, pilot)
        await pilot.press("ctrl+t")  # a tool call under it: its name field has the focus
        await settle(app, pilot)
        await pilot.press(*"get_weather", "tab", *"call_1", "tab", *'{"city": "Paris"}')
        await pilot.press("ctrl+n", "ctrl+r", "ctrl+r")  # a new message: user -> assistant -> tool
        await settle(app, pilot)
        await pilot.press(*"20 C", "tab", *"call_1", "tab", *"get_weather")
        await settle(app, pilot)
        assert chat.messages() == WEATHER
        tok = app.tokenizer
        assert tok is not None
        template = templates_of(app.session.metadata)["default"]
        for runtime in ("llama-server", "transformers"):
            screen.query_one("#chat-runtime").value = runtime  # type: ignore[attr-defined]
            await settle(app, pilot)
            expected = chat_prompt(tok, template, WEATHER, runtime=runtime)
            assert screen.prompt is not None and screen.prompt.ids == expected.ids, runtime
            assert screen.prompt.rendered == expected.rendered
            assert (
                '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
                in expected.rendered
            )
            assert "<tool_response>\n20 C\n</tool_response>" in expected.rendered
        # a tool message's fields show under it only while its role is tool; an assistant's calls likewise
        boxes = chat.boxes
        assert boxes[2].query_one(ToolResultRow).display and not boxes[1].query_one(ToolResultRow).display
        assert boxes[1].query_one(".tool-calls").display and not boxes[2].query_one(".tool-calls").display


async def test_arguments_that_are_not_json_are_an_error_line() -> None:
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        chat = await _load(app, pilot, screen, WEATHER)
        args = chat.boxes[1].query_one(".tool-call-args", Input)
        args.focus()
        await pilot.press("end", "backspace")  # '{"city": "Paris"' : not JSON
        await settle(app, pilot)
        shown = str(screen.query_one("#chat-error", Static).render())
        assert screen.has_class("-error") and screen.prompt is None
        assert shown.startswith("message 1, tool call 0: arguments: not JSON") and "\n" not in shown.strip()
        # the session keeps what was typed, as a string (the form the OpenAI API sends)
        assert chat.messages(strict=False)[1]["tool_calls"][0]["function"]["arguments"] == '{"city": "Paris"'
        await pilot.press("}")
        await settle(app, pilot)
        assert not screen.has_class("-error") and screen.prompt is not None


async def test_ctrl_z_restores_a_removed_message_or_call_at_its_place() -> None:
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        chat = await _load(app, pilot, screen, WEATHER + [{"role": "user", "content": "Thanks"}])
        before, ids = chat.messages(), screen.prompt.ids  # type: ignore[union-attr]
        chat.editors[1].focus()
        await pilot.press("ctrl+o")
        await settle(app, pilot)
        assert chat.messages() == [before[0], *before[2:]]
        assert any("ctrl+z restores it" in n.message for n in app._notifications)
        assert app.focused is chat.editors[1]  # the next message: a text box, yet ctrl+z restores
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert chat.messages() == before and screen.prompt.ids == ids  # type: ignore[union-attr]
        assert app.focused is chat.editors[1]
        # a tool call: ctrl+o in its fields removes the call only
        chat.boxes[1].query_one(".tool-call-args", Input).focus()
        await pilot.press("ctrl+o")
        await settle(app, pilot)
        assert "tool_calls" not in chat.messages()[1] and len(chat.messages()) == 4
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert chat.messages() == before
        # once something else is typed, ctrl+z in a text box is its own undo; the palette still restores
        chat.editors[3].focus()
        await pilot.press("ctrl+o")
        await settle(app, pilot)
        await _type_into(pilot, chat.editors[0], "!")
        await settle(app, pilot)
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert chat.messages() == before[:3]
        commands = {c.title: c for c in app.get_system_commands(screen)}
        await commands["Chat: restore the removed message"].callback()  # type: ignore[misc]
        await settle(app, pilot)
        assert chat.messages() == before


async def test_tab_reaches_every_control_in_order_and_shift_tab_goes_back() -> None:
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        chat = await _load(app, pilot, screen, WEATHER)
        chain = screen.focus_chain
        start = chain.index(chat.editors[0])
        seen = []
        chat.editors[0].focus()
        await pilot.pause()
        for _ in range(len(chain)):
            seen.append(app.focused)
            await pilot.press("tab")
            await pilot.pause()
        assert app.focused is chat.editors[0]  # all the way round
        assert seen == chain[start:] + chain[:start]
        call, answer = chat.boxes[1].query_one(ToolCallRow), chat.boxes[2].query_one(ToolResultRow)
        conversation = [chat.editors[0], chat.editors[1], *call.query(Input), chat.editors[2], *answer.query(Input)]
        assert seen[: len(conversation)] == conversation  # each message, then its tool fields, in reading order
        tools, variables = screen.query_one("#chat-tools"), screen.query_one("#chat-vars")
        assert seen[len(conversation)] is tools and variables in seen
        assert chat not in seen  # the conversation's scroll box is no stop of its own
        for widget in reversed(seen):
            await pilot.press("shift+tab")
            await pilot.pause()
            assert app.focused is widget


async def test_select_all_and_clear_in_every_kind_of_text_box() -> None:
    app = make_app(QWEN3, text="some text")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        boxes: list[tuple[str, str]] = [("f1", "#tok-input")]
        screen = await _open(app, pilot)
        await _load(app, pilot, screen, WEATHER)
        screen.query_one("#chat-tools", TextArea).load_text("[]")
        screen.query_one("#chat-vars", Input).value = "enable_thinking=false"
        boxes += [("f5", ".chat-message"), ("f5", "#chat-tools"), ("f5", "#chat-vars"), ("f5", ".tool-call-name"),
                  ("f3", "#vocab-search"), ("f4", "#meta-search")]  # fmt: skip
        for view, selector in boxes:
            await pilot.press(view)
            await settle(app, pilot)
            box = app.screen.query(selector).first()
            if isinstance(box, Input) and not box.value:
                box.value = "typed"
            box.focus()
            await pilot.pause()
            await pilot.press("ctrl+a")
            await pilot.pause()
            text = box.text if isinstance(box, TextArea) else box.value
            selected = (
                box.selected_text if isinstance(box, TextArea) else box.value[box.selection.start : box.selection.end]
            )
            assert text and selected == text, selector
            await pilot.press("alt+x")
            await settle(app, pilot)
            assert (box.text if isinstance(box, TextArea) else box.value) == "", selector
            if isinstance(box, TextArea):
                await pilot.press("ctrl+z")  # a clear is one undoable edit
                await pilot.pause()
                assert box.text == text, selector
        await pilot.press("f1")
        await settle(app, pilot)
        assert app.text == "some text"  # the Tokenize text came back with its undo


async def test_ctrl_c_is_in_the_footer_and_copies_outside_a_selection() -> None:
    app = make_app(QWEN3, text="Hello world")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        for view in ("f1", "f2", "f3", "f4", "f5", "f6", "f8"):
            await pilot.press(view)
            await settle(app, pilot)
            keys = [(k.key, str(k.description)) for k in app.screen.query_one(Footer).query("FooterKey")]
            assert ("ctrl+c", "Copy") in keys, (view, keys)
        await pilot.press("f1")
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", TextArea)
        assert app.focused is editor
        await pilot.press("ctrl+c")  # nothing selected in the text: the view's ids
        assert json.loads(app.clipboard) == list(app.ids)
        editor.select_all()
        await pilot.press("ctrl+c")  # a selection: the text box copies it
        assert app.clipboard == "Hello world"


async def test_a_removed_message_box_draws_blank_instead_of_raising() -> None:
    """The flaky teardown KeyError 'text-area--gutter': a frame drawn after a message's removal (Textual
    clears a removed widget's component styles, which TextArea's theme reads on every frame)."""
    from textual.geometry import Region

    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        chat = screen.query_one("#chat-messages", ChatMessages)
        editor = chat.editors[0]
        editor.focus()
        await pilot.press("ctrl+o")
        await settle(app, pilot)
        assert editor not in chat.editors and not editor.is_attached
        lines = editor.render_lines(Region(0, 0, 20, 3))
        assert [line.text for line in lines] == [" " * 20] * 3


async def test_a_session_with_tool_calls_and_a_runtime_reopens_identical(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tui_tok.explore.session_file import load
    from tui_tok.ui.session_io import collect

    path = tmp_path / "s.json"
    reasoning = {"role": "assistant", "content": "ok", "reasoning_content": "think"}  # no field shows it: kept
    app = make_app(QWEN3, text="hi")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        await _load(app, pilot, screen, [*WEATHER, reasoning])
        screen.query_one("#chat-runtime").value = "transformers"  # type: ignore[attr-defined]
        screen.query_one("#chat-vars", Input).value = "enable_thinking=false"
        screen.query_one("#chat-tools", TextArea).load_text(
            '[{"type": "function", "function": {"name": "get_weather"}}]'
        )
        await pilot.press("ctrl+g")
        await settle(app, pilot)
        ids = screen.prompt.ids  # type: ignore[union-attr]
        await answer_path_prompt(app, pilot, "alt+s", path)
        saved = collect(app)
    assert saved.chat is not None and saved.chat.runtime == "transformers"
    assert saved.chat.messages == [*WEATHER, reasoning] and load(path) == saved
    state = load(path)
    again = make_app(QWEN3, text=state.text)
    again.pending_session = state
    async with again.run_test(size=SIZE) as pilot:
        screen = await _open(again, pilot)
        assert collect(again) == saved
        assert screen.query_one("#chat-runtime").value == "transformers"  # type: ignore[attr-defined]
        assert screen.prompt is not None and screen.prompt.runtime == "transformers" and screen.prompt.ids == ids
        chat = screen.query_one("#chat-messages", ChatMessages)
        assert chat.boxes[1].query_one(".tool-call-name", Input).value == "get_weather"
        assert chat.boxes[2].query_one(".tool-result-id", Input).value == "call_1"
        assert any(
            "message 3: kept as it came, not editable: reasoning_content" in n.message for n in again._notifications
        )


async def test_a_loaded_conversation_keeps_the_focus_in_the_conversation() -> None:
    """The focus was on a message of the sample conversation a loaded one replaces: it was lost with it
    (keys then went nowhere after ``--session`` or a model switch)."""
    from tui_tok.explore.session_file import ChatState, SessionState

    app = make_app(QWEN3, text="hi")
    app.pending_session = SessionState(text="hi", chat=ChatState(messages=WEATHER))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        chat = screen.query_one("#chat-messages", ChatMessages)
        assert chat.messages() == WEATHER
        assert app.focused is chat.editors[-1]
        await pilot.press("shift+tab", "shift+tab", "shift+tab")  # the call's fields: args, id, name
        await pilot.press("ctrl+o")  # removes that call
        await settle(app, pilot)
        assert "tool_calls" not in chat.messages()[1]


async def test_alt_l_loads_a_conversation_file_into_the_chat_view(tmp_path) -> None:  # type: ignore[no-untyped-def]

    path = tmp_path / "conversation.json"
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    path.write_text(json.dumps({"messages": WEATHER, "tools": tools}), "utf-8")
    app = make_app(QWEN3, text="my text")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        screen.query_one("#chat-runtime").value = "transformers"  # type: ignore[attr-defined]
        await settle(app, pilot)
        await answer_path_prompt(app, pilot, "alt+l", path)
        chat = screen.query_one("#chat-messages", ChatMessages)
        assert chat.messages() == WEATHER and json.loads(screen.query_one("#chat-tools", TextArea).text) == tools
        assert app.text == "my text" and screen.query_one("#chat-runtime").value == "transformers"  # type: ignore[attr-defined]
        assert any(n.message.startswith("Conversation loaded from") for n in app._notifications)
        tok = app.tokenizer
        assert tok is not None and screen.prompt is not None
        template = templates_of(app.session.metadata)["default"]
        assert screen.prompt.ids == chat_prompt(tok, template, WEATHER, tools=tools, runtime="transformers").ids


async def test_loaded_messages_keep_what_no_field_shows() -> None:
    parts = [{"type": "text", "text": "from parts"}]
    messages = [{"role": "user", "content": "two\nlines\tand a tab"}, {"role": "user", "content": parts},
                {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                {"role": "assistant", "tool_calls": [{"type": "retrieval", "retrieval": {}}]}]  # fmt: skip
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        chat = screen.query_one("#chat-messages", ChatMessages)
        boxes, notes = chat.prepare(messages)
        assert notes == ["message 1: kept as it came, not editable: content that is not a string",
                         "message 3: kept as it came, not editable: tool_calls"]  # fmt: skip
        await chat.replace(boxes)
        await settle(app, pilot)
        assert chat.messages() == messages
        assert not chat.editors[0].read_only and chat.editors[1].read_only
        assert chat.boxes[2].query_one(".tool-call-args", Input).value == "{}"
