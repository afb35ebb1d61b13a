"""Files in and out of the explorer (alt+s/l/o/w/e/p and the palette): a saved session reopens
identical, a text file opens as its exact bytes and saves back so, the tokens and the chat
prompt export as the tokenizer makes them."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input, TextArea
from ui_support import answer_path_prompt, settle

from support import ASSETS
from tui_tok import read_gguf
from tui_tok.explore.session_file import load
from tui_tok.ui.app import TuiTokApp
from tui_tok.ui.screens.chat import ChatScreen
from tui_tok.ui.screens.session_io import PathPrompt
from tui_tok.ui.screens.tokenize import TokenizeScreen
from tui_tok.ui.session_io import collect
from tui_tok.ui.widgets.chat_messages import ChatMessages

QWEN3 = ASSETS / "qwen3-vocab.gguf"
PHI3 = ASSETS / "ggml-vocab-phi-3.gguf"
SIZE = (130, 40)
RAW = b"caf\xe9 \x85 <|im_start|>ok\r\nline\x00two\r\x0b\xe2\x80\xa8 \xf0\x9f\x99\x82\n"
TOOLS = '[{"type": "function", "function": {"name": "add"}}]'


def _app(text: str = "hello", compare: bool = False) -> TuiTokApp:
    return TuiTokApp(read_gguf(QWEN3), text=text, show_timings=False, compare=read_gguf(PHI3) if compare else None)


async def _edit_chat(app: TuiTokApp, pilot) -> ChatScreen:  # type: ignore[no-untyped-def]
    await pilot.press("f5")
    await settle(app, pilot)
    chat = app.screen
    assert isinstance(chat, ChatScreen)
    await pilot.press("ctrl+n", "x", "ctrl+g")  # a new message, and no generation prompt
    chat.query_one("#chat-vars", Input).value = "enable_thinking=false"
    chat.query_one("#chat-tools", TextArea).load_text(TOOLS)
    await settle(app, pilot)
    return chat


async def test_a_saved_session_reopens_identical(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    text = RAW.decode("utf-8", "surrogateescape")
    app = _app(text, compare=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f1", "ctrl+t", "ctrl+g")  # parse special on, pieces shown
        await settle(app, pilot)
        await _edit_chat(app, pilot)
        await answer_path_prompt(app, pilot, "alt+s", path)
        saved = collect(app)
        ids = list(app.ids)
    assert saved.toggles["parse_special"] and saved.toggles["show_pieces"] and saved.text == text
    assert saved.chat is not None and saved.chat.messages[-1] == {"role": "assistant", "content": "x"}
    assert saved.compare == str(PHI3.resolve())
    assert load(path) == saved
    # reopened as `tui-tok MODEL --session FILE` does (run_app)
    state = load(path)
    again = _app(state.text, compare=True)
    again.pending_session = state
    async with again.run_test(size=SIZE) as pilot:
        await settle(again, pilot)
        await pilot.press("f1")
        await settle(again, pilot)
        assert list(again.ids) == ids
        await pilot.press("f5")
        await settle(again, pilot)
        assert collect(again) == saved
        chat = again.screen
        assert isinstance(chat, ChatScreen) and chat.prompt is not None
        assert not chat.prompt.rendered.endswith("<|im_start|>assistant\n")  # no generation prompt
        assert '"name": "add"' in chat.prompt.rendered  # the tools reached the template


async def test_loading_a_session_in_a_running_app(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    app = _app("first text")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+b")  # add special off
        await _edit_chat(app, pilot)
        await answer_path_prompt(app, pilot, "alt+s", path)
        saved = collect(app)
    other = _app("another text")
    async with other.run_test(size=SIZE) as pilot:
        await settle(other, pilot)
        await pilot.press("f5")  # the Chat view exists with its sample conversation
        await settle(other, pilot)
        await answer_path_prompt(other, pilot, "alt+l", path)
        assert collect(other) == saved
        assert len(other.screen.query_one("#chat-messages", ChatMessages).editors) == 5
        await pilot.press("f1")
        await settle(other, pilot)
        tokenize = other.screen
        assert isinstance(tokenize, TokenizeScreen) and not tokenize.add_special
        assert tokenize.query_one("#tok-input", TextArea).text == "first text"
        assert list(other.ids) == other.tokenizer.encode("first text", add_special=False)  # type: ignore[union-attr]


async def test_open_save_and_export(tmp_path: Path) -> None:
    src, out, tokens, prompt_file = tmp_path / "in.txt", tmp_path / "out.txt", tmp_path / "t.jsonl", tmp_path / "p.json"
    src.write_bytes(RAW)
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tok = app.tokenizer
        assert tok is not None
        await answer_path_prompt(app, pilot, "alt+o", src)
        assert app.screen.query_one("#tok-input", TextArea).text.encode("utf-8", "surrogateescape") == RAW
        assert list(app.ids) == tok.encode(RAW)
        await answer_path_prompt(app, pilot, "alt+w", out)
        assert out.read_bytes() == RAW
        await answer_path_prompt(app, pilot, "alt+e", tokens)
        rows = [json.loads(line) for line in tokens.read_text("utf-8").splitlines()]
        expected = tok.tokenize(RAW)
        assert [(r["id"], r["start"], r["end"]) for r in rows] == [(t.id, t.start, t.end) for t in expected]
        assert [r["piece"].encode("utf-8", "surrogateescape") for r in rows] == [
            tok.token_to_piece(t.id) for t in expected
        ]
        await pilot.press("f5")
        await settle(app, pilot)
        await answer_path_prompt(app, pilot, "alt+p", prompt_file)
        chat = app.screen
        assert isinstance(chat, ChatScreen) and chat.prompt is not None
        assert json.loads(prompt_file.read_text("ascii")) == {"text": chat.prompt.rendered, "ids": chat.prompt.ids}
        notes = [n.message for n in app._notifications]
        assert any(n.startswith("Exported") and "tokens to" in n for n in notes)


async def test_errors_are_one_line_and_escape_cancels(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tui-tok-session", "version": 1, "text": 3}')
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await answer_path_prompt(app, pilot, "alt+l", bad)
        await answer_path_prompt(app, pilot, "alt+o", tmp_path / "missing.txt")
        notes = [n.message for n in app._notifications]
        assert any(n.endswith("bad.json: text: expected a string") for n in notes), notes
        assert any("missing.txt" in n for n in notes)
        assert all("\n" not in n for n in notes) and app.text == "hello"
        await pilot.press("alt+s")
        await pilot.pause()
        assert isinstance(app.screen, PathPrompt)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TokenizeScreen) and not (tmp_path / "tui-tok-session.json").exists()
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Save session…", "Load session…", "Open text file…", "Save text…", "Export tokens (JSONL)…",
                "Export chat prompt…"} <= titles  # fmt: skip


async def test_reopened_toggles_show_in_their_check_boxes(tmp_path: Path) -> None:
    from tui_tok.explore.session_file import SessionState
    from tui_tok.ui.widgets.check_box import CheckBox

    app = _app("<|im_start|>hi")
    app.pending_session = SessionState(text="<|im_start|>hi", toggles={"parse_special": True, "add_special": False})
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TokenizeScreen) and screen.parse_special and not screen.add_special
        assert screen.query_one("#cb-parse_special", CheckBox).value
        assert not screen.query_one("#cb-add_special", CheckBox).value
        assert list(app.ids) == app.tokenizer.encode("<|im_start|>hi", add_special=False, parse_special=True)  # type: ignore[union-attr]
