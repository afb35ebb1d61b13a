"""A conversation loaded from a file keeps its messages' bytes in the Chat view (CR, CR LF, mixed
line ends, U+2028, NEL, VT): the boxes hold and show them, and the prompt's tokens are those of
the file's messages (``tui-tok chat --messages`` on the same file). A paste's CR is still the
terminal's newline (LF), and Enter types LF, also in a box loaded with CR LF."""

from __future__ import annotations

import json
from pathlib import Path

from textual import events
from ui_support import answer_path_prompt, make_app, settle

from support import ASSETS
from tui_tok.explore.chat.prompt import chat_prompt
from tui_tok.explore.chat.render import templates_of
from tui_tok.ui.screens.chat import ChatScreen
from tui_tok.ui.widgets.chat_messages import ChatMessages

QWEN3 = ASSETS / "qwen3-vocab.gguf"
SIZE = (130, 40)
MESSAGES = [
    {"role": "system", "content": "line one\r\nline two"},
    {"role": "user", "content": "a\rb\nc"},  # mixed: TextArea made every break LF
    {"role": "assistant", "content": "x\r\ny\nz"},  # mixed: TextArea made every break CR LF
    {"role": "user", "content": "ends in CR\r"},
    {"role": "user", "content": "p\u2028q\x85r\x0bs"},
]


async def test_a_loaded_conversation_keeps_its_crs_and_their_tokens(tmp_path: Path) -> None:
    path = tmp_path / "conversation.json"
    path.write_bytes(json.dumps(MESSAGES).encode())
    app = make_app(QWEN3, text="my text")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f5")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        await answer_path_prompt(app, pilot, "alt+l", path)
        chat = screen.query_one("#chat-messages", ChatMessages)
        assert [e.text for e in chat.editors] == [m["content"] for m in MESSAGES]
        assert chat.messages() == MESSAGES
        assert chat.editors[1].document.lines == ["a␍b", "c"]  # shown: the CR in its line, as a picture
        tok = app.tokenizer
        assert tok is not None and screen.prompt is not None
        template = templates_of(app.session.metadata)["default"]
        runtime = screen.query_one("#chat-runtime").value  # type: ignore[attr-defined]
        assert screen.prompt.ids == chat_prompt(tok, template, MESSAGES, runtime=runtime).ids

        first = chat.editors[0]  # CR LF in it: Enter still types LF, a paste's CR LF becomes LF
        first.focus()
        first.move_cursor(first.document.end)
        await pilot.press("enter")
        app.post_message(events.Paste("p\r\nq"))  # as the driver sends it: the app hands it to the focus
        await settle(app, pilot)
        assert first.text == "line one\r\nline two\np\nq"
        assert chat.messages()[0]["content"] == first.text
