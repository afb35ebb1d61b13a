"""Tool calls and tool results as the Chat view edits them, in the message form ``tui-tok chat --messages`` reads.

An assistant message's ``tool_calls`` is the OpenAI list llama-server takes
(``{"id", "type": "function", "function": {"name", "arguments"}}``, parsed by
``common_chat_msgs_parse_oaicompat`` in llama.cpp's common/chat.cpp, here ``llama_server/messages.py``);
a tool message names the call it answers with ``tool_call_id`` (and ``name``). The view edits each
call as three fields, its function name, its id and its arguments as JSON text: ``call_fields`` reads
a message's calls into them, ``tool_call`` builds a call back. Arguments are parsed with the bounded
JSON loader (``tui_tok.json_input``); text that is not JSON is a ``ChatInputError`` naming the message
and the call when the prompt is rendered, and is kept as typed (a string: the form the OpenAI API
sends) when the conversation is saved. Arguments a file gave as a string stay a string (templates
such as Qwen3's print a string as it is and an object through ``tojson``, so the two render apart).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tui_tok.explore.chat.variables import ChatInputError
from tui_tok.explore.visible import json_dumps, visible

CALL_KEYS = frozenset({"id", "type", "function"})
FUNCTION_KEYS = frozenset({"name", "arguments"})


@dataclass(frozen=True, slots=True)
class CallFields:
    """One tool call as its three text fields."""

    name: str = ""
    call_id: str = ""
    """Empty: the call has no ``id``."""
    arguments: str = ""
    """JSON text (empty: ``{}``)."""
    as_string: bool = False
    """The arguments go out as a JSON string holding the text, not as the parsed value."""


def call_fields(message: Mapping[str, Any]) -> list[CallFields] | None:
    """The calls of ``message`` as fields; None when they do not fit them (a call that is not a
    function, a key the fields cannot hold, a control character a text box would draw raw): the
    view then keeps ``tool_calls`` as it came.

    >>> call_fields({"role": "assistant", "tool_calls": [
    ...     {"type": "function", "id": "c1", "function": {"name": "add", "arguments": {"a": 1}}}]})
    [CallFields(name='add', call_id='c1', arguments='{"a": 1}', as_string=False)]
    >>> call_fields({"role": "assistant", "tool_calls": [{"type": "retrieval"}]}) is None
    True
    """
    calls = message.get("tool_calls")
    if calls is None:
        return []
    if not isinstance(calls, list):
        return None
    out: list[CallFields] = []
    for call in calls:
        if not isinstance(call, Mapping) or set(call) - CALL_KEYS or call.get("type", "function") != "function":
            return None
        fn, call_id = call.get("function"), call.get("id", "")
        if not isinstance(fn, Mapping) or set(fn) - FUNCTION_KEYS or not isinstance(fn.get("name"), str):
            return None
        if not isinstance(call_id, str) or ("id" in call and not call_id):
            return None
        args = fn.get("arguments", {})
        fields = (CallFields(fn["name"], call_id, args, as_string=True) if isinstance(args, str)
                  else CallFields(fn["name"], call_id, json_dumps(args)))  # fmt: skip
        if any(visible(s) != s for s in (fields.name, fields.call_id, fields.arguments)):
            return None
        out.append(fields)
    return out


def tool_call(fields: CallFields, *, where: str, strict: bool = True) -> dict[str, Any]:
    """The call in the ``--messages`` form. ``strict``: arguments that are not JSON raise
    ``ChatInputError`` (``where`` names the call); otherwise they are kept as a string.

    >>> tool_call(CallFields("add", "c1", '{"a": 1}'), where="message 2, tool call 0")
    {'id': 'c1', 'type': 'function', 'function': {'name': 'add', 'arguments': {'a': 1}}}
    >>> tool_call(CallFields("add", "", "{a"), where="message 2, tool call 0")
    Traceback (most recent call last):
    ...
    tui_tok.explore.chat.variables.ChatInputError: message 2, tool call 0: arguments: not JSON: ...
    """
    from tui_tok.json_input import JSONInputError, load_json

    text = fields.arguments if fields.arguments.strip() else "{}"
    arguments: Any
    try:
        arguments = load_json(text)
    except JSONInputError as exc:
        if strict:
            raise ChatInputError(f"{where}: arguments: {' '.join(str(exc).split())}") from None
        arguments = fields.arguments
    else:
        if fields.as_string:
            arguments = fields.arguments
    call: dict[str, Any] = {"id": fields.call_id} if fields.call_id else {}
    call.update({"type": "function", "function": {"name": fields.name, "arguments": arguments}})
    return call
