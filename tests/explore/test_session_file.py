"""Session files: lossless text, checked fields (one line naming the key), bounded reading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_tok.explore import session_file
from tui_tok.explore.session_file import (
    ChatState,
    SessionFileError,
    SessionState,
    conversation_of,
    from_json,
    load,
    save,
    to_json,
)

RAW = b"caf\xe9 \x85 ok\r\nline\x00two\r\x0b\xe2\x80\xa8 \xf0\x9f\x99\x82\n"
"""Latin-1 bytes (not UTF-8), CR LF, a lone CR, NUL, VT, U+2028 and an emoji."""


def _state(text: str) -> SessionState:
    chat = ChatState(messages=[{"role": "system", "content": "be\r\nbrief"}, {"role": "user", "content": "日本語 🙂"}],
                     template="default", add_generation_prompt=False, variables="enable_thinking=false",
                     tools_text='[{"type": "function", "function": {"name": "f"}}]')  # fmt: skip
    return SessionState(text=text, toggles={"add_special": False, "parse_special": True, "show_whitespace": True,
                                            "show_pieces": True, "show_cuts": False},
                        chat=chat, compare="/models/b.gguf", model="a.gguf")  # fmt: skip


@pytest.mark.parametrize("text", [RAW.decode("utf-8", "surrogateescape"), "plain\r\n\x00 text 🙂", ""])
def test_round_trip_is_identical(tmp_path: Path, text: str) -> None:
    state = _state(text)
    save(tmp_path / "s.json", state)
    back = load(tmp_path / "s.json")
    assert back == state
    assert back.text.encode("utf-8", "surrogateescape") == text.encode("utf-8", "surrogateescape")
    doc = json.loads((tmp_path / "s.json").read_text("ascii"))
    assert ("text_base64" in doc) == (text.startswith("caf"))
    assert doc["messages"] == state.chat.messages and doc["tools"][0]["type"] == "function"  # type: ignore[union-attr]


def test_a_session_is_a_conversation_file() -> None:
    doc = json.loads(to_json(_state("x")))
    messages, tools = conversation_of(doc, "s.json")
    assert messages[1]["content"] == "日本語 🙂" and tools == [{"type": "function", "function": {"name": "f"}}]
    assert conversation_of([{"role": "user", "content": "hi"}], "m.json") == ([{"role": "user", "content": "hi"}], None)


def test_without_chat_the_conversation_stays_unset() -> None:
    back = from_json(json.loads(to_json(SessionState(text="hi"))), "s.json")
    assert back.chat is None and back.compare is None and back.toggles == {}


@pytest.mark.parametrize(("change", "message"), [
    ({"format": "other"}, "not a tui-tok session"),
    ({"version": 99}, "version: 99"),
    ({"text": 5}, "text: expected a string"),
    ({"toggles": {"parse_special": "yes"}}, "toggles.parse_special: expected true or false"),
    ({"messages": [{"role": "user"}, {"content": "x"}]}, "messages[1]: expected an object with a string \"role\""),
    ({"messages": {"role": "user"}}, "messages: expected a JSON list"),
    ({"chat": {"template": 3}}, "template: expected a string"),
    ({"chat": {"runtime": "vllm"}}, "chat: runtime: 'vllm' is not one of llama-server, transformers"),
    ({"text_base64": "@@@"}, "text_base64: not base64"),
])  # fmt: skip
def test_bad_fields_are_named(change: dict, message: str) -> None:  # type: ignore[type-arg]
    doc = json.loads(to_json(_state("x")))
    doc.update(change)
    with pytest.raises(SessionFileError, match="^s.json: ") as info:
        from_json(doc, "s.json")
    assert message in str(info.value) and "\n" not in str(info.value)


def test_reading_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.json"
    path.write_text(to_json(_state("x" * 5000)))
    monkeypatch.setattr(session_file, "MAX_BYTES", 4000)
    with pytest.raises(SessionFileError, match="more than the 4,000 allowed"):
        load(path)
    monkeypatch.setattr(session_file, "MAX_BYTES", 10**8)
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SessionFileError, match="nested more than"):
        load(path)
    path.write_bytes(b'{"x": "\xff"}')
    with pytest.raises(SessionFileError, match="s.json: the session file: not JSON"):
        load(path)
    with pytest.raises(SessionFileError, match="missing.json: the session file: cannot open"):
        load(tmp_path / "missing.json")


def test_the_runtime_and_tool_calls_round_trip(tmp_path: Path) -> None:
    messages = [{"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]},
                {"role": "tool", "content": "2", "tool_call_id": "c1", "name": "f"}]  # fmt: skip
    state = SessionState(text="", chat=ChatState(messages=messages, runtime="transformers"))
    save(tmp_path / "s.json", state)
    assert load(tmp_path / "s.json") == state
    assert json.loads((tmp_path / "s.json").read_text("ascii"))["chat"]["runtime"] == "transformers"
    # a file without the runtime (older tui-tok) renders with llama-server, the default
    doc = json.loads(to_json(state))
    del doc["chat"]["runtime"]
    assert from_json(doc, "s.json").chat.runtime == "llama-server"  # type: ignore[union-attr]


def test_chat_controls_and_added_templates_round_trip() -> None:
    """The Chat view's runtime, thinking, reasoning effort, continue and its loaded or edited templates."""
    state = _state("x")
    assert state.chat is not None
    state.chat.runtime, state.chat.thinking, state.chat.reasoning_effort = "transformers", "off", "high"
    state.chat.continue_final_message = "auto"
    state.chat.templates = {"mine.jinja": "{{ 'a\r\n' }}", "(edited)": "X{{ messages }}"}
    state.chat.template = "(edited)"
    assert from_json(json.loads(to_json(state)), "s.json") == state
    # an older file (no such keys): the view's defaults
    doc = json.loads(to_json(_state("x")))
    for key in ("runtime", "thinking", "reasoning_effort", "continue_final_message", "templates"):
        del doc["chat"][key]
    chat = from_json(doc, "s.json").chat
    assert chat is not None and (chat.runtime, chat.thinking, chat.reasoning_effort, chat.templates) == (
        "llama-server", "auto", None, {})  # fmt: skip


@pytest.mark.parametrize(("templates", "message"), [
    ({"big": "x" * (session_file.MAX_TEMPLATE_BYTES + 1)}, "s.json: chat.templates: 'big': 1,000,001 characters, more than"),
    ({str(i): "" for i in range(session_file.MAX_TEMPLATES + 1)}, "s.json: chat.templates: 33 templates, more than the 32"),
    ({"n": 3}, "s.json: chat.templates: 'n': expected a string"),
])  # fmt: skip
def test_saved_templates_are_bounded(templates: dict[str, object], message: str) -> None:
    doc = json.loads(to_json(_state("x")))
    doc["chat"]["templates"] = templates
    with pytest.raises(SessionFileError) as info:
        from_json(doc, "s.json")
    assert str(info.value).startswith(message)
