"""Tool calls as the Chat view's fields hold them, and back to the ``--messages`` form."""

from __future__ import annotations

import pytest

from tui_tok.explore.chat.tool_calls import CallFields, call_fields, tool_call
from tui_tok.explore.chat.variables import ChatInputError

CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": {"city": "Paris", "n": [1, 2]}},
}


def test_fields_and_back_are_the_same_call() -> None:
    fields = call_fields({"role": "assistant", "tool_calls": [CALL]})
    assert fields == [CallFields("get_weather", "c1", '{"city": "Paris", "n": [1, 2]}')]
    assert tool_call(fields[0], where="message 1, tool call 0") == CALL
    assert call_fields({"role": "assistant", "content": "no calls"}) == []


def test_string_arguments_stay_a_string_and_no_id_stays_none() -> None:
    call = {"type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
    fields = call_fields({"tool_calls": [call]})
    assert fields == [CallFields("f", "", '{"a":1}', as_string=True)]
    assert tool_call(fields[0], where="x") == call
    assert tool_call(CallFields("f"), where="x") == {"type": "function", "function": {"name": "f", "arguments": {}}}


@pytest.mark.parametrize("calls", [
    "not a list", [{"type": "retrieval"}], [{"type": "function", "function": {"name": 3}}],
    [{"type": "function", "function": {"name": "f"}, "index": 0}], [{"type": "function", "id": "", "function": {"name": "f"}}],
    [{"type": "function", "function": {"name": "f\x1b]2;x\x07"}}],
])  # fmt: skip
def test_calls_the_fields_cannot_hold_are_none(calls: object) -> None:
    assert call_fields({"role": "assistant", "tool_calls": calls}) is None


def test_arguments_that_are_not_json() -> None:
    fields = CallFields("f", "c1", '{"city": ')
    with pytest.raises(ChatInputError, match=r"^message 2, tool call 1: arguments: not JSON: line 1 column 10"):
        tool_call(fields, where="message 2, tool call 1")
    assert tool_call(fields, where="x", strict=False)["function"]["arguments"] == '{"city": '
    with pytest.raises(ChatInputError, match="nested more than 64 deep"):  # the bounded loader
        tool_call(CallFields("f", "", "[" * 100), where="x")
