"""A request's messages and tools as llama-server hands them to the template (common/chat.cpp).

The server first parses the OpenAI-form messages into ``common_chat_msg`` structs
(``common_chat_msgs_parse_oaicompat``) and writes them back as JSON (``to_json_oaicompat``): what a
template sees is that round trip, not the request. So ``content`` is always there (``""`` for a null
one), ``reasoning_content`` only when non-empty, tool-call arguments are JSON text (an object in the
request is dumped compactly), keys come in the struct's order, unknown keys are gone. Then the
workarounds of ``common_chat_templates_apply_jinja`` apply, driven by the template's capabilities.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tui_tok.explore.chat.llama_server.caps import Caps
from tui_tok.explore.chat.llama_server.values import LlamaError


@dataclass(slots=True)
class Msg:
    """``common_chat_msg``."""

    role: str
    content: str = ""
    parts: list[tuple[str, str]] = field(default_factory=list)
    """``content_parts``: (type, text)."""
    tool_calls: list[tuple[str, str, str]] = field(default_factory=list)
    """(name, arguments as JSON text, id)."""
    reasoning_content: str = ""
    tool_name: str = ""
    tool_call_id: str = ""

    def render_content(self) -> str:
        """``render_content("\\n")``: the content, or the text parts joined."""
        if self.content:
            return self.content
        return "\n".join(text for kind, text in self.parts if kind == "text")


def dump_compact(value: Any) -> str:
    """nlohmann's ``dump()``: no spaces, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _string(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise LlamaError(f"Failed to parse messages: [json.exception.type_error.302] {what} must be a string")
    return value


def parse_messages(messages: Sequence[Mapping[str, Any]]) -> list[Msg]:
    """``common_chat_msgs_parse_oaicompat``, with its refusals."""
    out: list[Msg] = []
    for message in messages:
        if not isinstance(message, Mapping):
            raise LlamaError(
                f"Failed to parse messages: Expected 'message' to be an object, got {dump_compact(message)}"
            )
        if "role" not in message:
            raise LlamaError(f"Failed to parse messages: Missing 'role' in message: {dump_compact(message)}")
        msg = Msg(role=_string(message["role"], "role"))
        content = message.get("content")
        if "content" in message:
            if isinstance(content, str):
                msg.content = content
            elif isinstance(content, list):
                for part in content:
                    if not isinstance(part, Mapping) or "type" not in part:
                        raise LlamaError(f"Failed to parse messages: Missing content part type: {dump_compact(part)}")
                    if part["type"] not in ("text", "media_marker"):
                        raise LlamaError(
                            f"Failed to parse messages: Unsupported content part type: {dump_compact(part['type'])}"
                        )
                    msg.parts.append((part["type"], _string(part.get("text"), "text")))
            elif content is not None:
                raise LlamaError("Failed to parse messages: Invalid 'content' type: expected string or array, got "
                                 f"{dump_compact(content)} (ref: https://github.com/ggml-org/llama.cpp/issues/8367)")  # fmt: skip
        if "tool_calls" in message:
            for call in message["tool_calls"] or ():
                if not isinstance(call, Mapping) or "type" not in call:
                    raise LlamaError(f"Failed to parse messages: Missing tool call type: {dump_compact(call)}")
                if call["type"] != "function":
                    raise LlamaError(f"Failed to parse messages: Unsupported tool call type: {dump_compact(call)}")
                fn = call.get("function")
                if not isinstance(fn, Mapping):
                    raise LlamaError(f"Failed to parse messages: Missing tool call function: {dump_compact(call)}")
                if "name" not in fn:
                    raise LlamaError(f"Failed to parse messages: Missing tool call name: {dump_compact(call)}")
                args = fn.get("arguments")
                msg.tool_calls.append((_string(fn["name"], "name"), args if isinstance(args, str) else dump_compact(args),
                                       _string(call["id"], "id") if "id" in call else ""))  # fmt: skip
        if "content" not in message and "tool_calls" not in message:
            raise LlamaError("Failed to parse messages: Expected 'content' or 'tool_calls' (ref: "
                             "https://github.com/ggml-org/llama.cpp/issues/8367 & https://github.com/ggml-org/llama.cpp/issues/12279)")  # fmt: skip
        for key, attr in (
            ("reasoning_content", "reasoning_content"),
            ("name", "tool_name"),
            ("tool_call_id", "tool_call_id"),
        ):
            if key in message:
                setattr(msg, attr, _string(message[key], key))
        out.append(msg)
    return out


def parse_tools(tools: Sequence[Any] | None) -> list[dict[str, Any]] | None:
    """``common_chat_tools_parse_oaicompat`` then ``common_chat_tools_to_json_oaicompat``: each tool as
    ``{"type", "function": {"name", "description", "parameters"}}``; None for no tools."""
    if not tools:
        return None
    out: list[dict[str, Any]] = []
    for tool in tools:
        listed = json.dumps(list(tools), ensure_ascii=False, indent=2)

        def where(what: str, listed: str = listed) -> str:  # not str.format: the JSON has braces of its own
            return f"Failed to parse tools: {what}; tools = {listed}"

        if not isinstance(tool, Mapping) or "type" not in tool:
            raise LlamaError(where(f"Missing tool type: {dump_compact(tool)}"))
        if tool["type"] != "function":
            raise LlamaError(where(f"Unsupported tool type: {dump_compact(tool)}"))
        fn = tool.get("function")
        if not isinstance(fn, Mapping):
            raise LlamaError(where(f"Missing tool function: {dump_compact(tool)}"))
        if not isinstance(fn.get("name"), str):
            raise LlamaError(where("[json.exception.out_of_range.403] key 'name' not found"))
        params = fn.get("parameters", {})
        out.append({"type": "function", "function": {"name": fn["name"], "description": fn.get("description", ""),
                                                      "parameters": json.loads(dump_compact(params))}})  # fmt: skip
    return out


def to_json(msg: Msg) -> dict[str, Any]:
    """``common_chat_msg::to_json_oaicompat(concat_typed_text=false)``."""
    out: dict[str, Any] = {"role": msg.role}
    if msg.content:
        out["content"] = msg.content
    elif msg.parts:
        if any(kind == "media_marker" for kind, _ in msg.parts):
            out["content"] = concat_parts([{"type": k, "text": t} for k, t in msg.parts])
        else:
            out["content"] = [{"type": kind, "text": text} for kind, text in msg.parts]
    else:
        out["content"] = ""
    if msg.reasoning_content:
        out["reasoning_content"] = msg.reasoning_content
    if msg.tool_name:
        out["name"] = msg.tool_name
    if msg.tool_call_id:
        out["tool_call_id"] = msg.tool_call_id
    if msg.tool_calls:
        calls = []
        for name, args, call_id in msg.tool_calls:
            call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": args}}
            if call_id:
                call["id"] = call_id
            calls.append(call)
        out["tool_calls"] = calls
    return out


def concat_parts(parts: Sequence[Mapping[str, Any]]) -> str:
    """``concat_content_parts``: text parts joined by newlines, none around media markers."""
    text = ""
    last_was_media = False
    for part in parts:
        kind = part.get("type", "")
        if kind == "text":
            newline = not last_was_media and bool(text)
            last_was_media = False
        elif kind == "media_marker":
            newline, last_was_media = False, True
        else:
            continue
        text += ("\n" if newline else "") + str(part.get("text", ""))
    return text


def normalize(messages: list[dict[str, Any]], caps: Caps) -> list[dict[str, Any]]:
    """``messages_inp_normalizer::normalize``: string content as typed parts for a template that only
    takes parts, parts joined for one that only takes strings."""
    only_string = caps.supports_string_content and not caps.supports_typed_content
    only_typed = caps.supports_typed_content and not caps.supports_string_content
    if not only_string and not only_typed:
        return messages
    out = []
    for message in messages:
        copy = dict(message)
        content = copy.get("content")
        if only_typed and isinstance(content, str):
            copy["content"] = [{"type": "text", "text": content}]
        elif only_string and isinstance(content, list):
            copy["content"] = concat_parts(content)
        out.append(copy)
    return out


def fold_system(messages: list[dict[str, Any]]) -> None:
    """``workaround::system_message_not_supported``: a first system message joined to the next one's
    content with a newline, or dropped when alone."""
    if messages and messages[0].get("role") == "system":
        if len(messages) > 1:
            first, second = messages[0], messages[1]
            if not isinstance(first.get("content"), str) or not isinstance(second.get("content"), str):
                raise LlamaError("[json.exception.type_error.302] type must be string, but is array")
            messages[1] = {**second, "content": first["content"] + "\n" + second["content"]}
        del messages[0]


def parse_arguments(messages: list[dict[str, Any]]) -> None:
    """``workaround::func_args_not_string``: tool-call arguments parsed for a template that reads them
    as objects."""
    for i, message in enumerate(messages):
        calls = message.get("tool_calls")
        if not calls:
            continue
        new_calls = []
        for call in calls:
            fn = call.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                try:
                    args = json.loads(fn["arguments"])
                except json.JSONDecodeError as exc:
                    raise LlamaError(f"Failed to parse tool call arguments as JSON: {exc.msg}") from None
                call = {**call, "function": {**fn, "arguments": args}}
            new_calls.append(call)
        messages[i] = {**message, "tool_calls": new_calls}
