"""A template's capabilities as llama.cpp probes them (``caps_get`` in common/jinja/caps.cpp).

Each probe renders a small conversation with tracked inputs and reads what the template did with
them: a system message whose content is never read means no system role (llama-server then folds
it into the first user message), arguments read as an object mean tool-call arguments are passed
parsed, content read as a list means typed content. A probe that fails to render is ignored, as
llama.cpp ignores it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tui_tok.explore.chat.llama_server import dialect
from tui_tok.explore.chat.llama_server.stats import stats_of, tracked


@dataclass(frozen=True, slots=True)
class Caps:
    """``jinja::caps``, with llama.cpp's defaults (caps.h)."""

    supports_string_content: bool = True
    supports_typed_content: bool = False
    supports_tools: bool = True
    supports_tool_calls: bool = True
    supports_parallel_tool_calls: bool = True
    supports_system_role: bool = True
    supports_preserve_reasoning: bool = False
    supports_reasoning_effort: bool = True
    supports_object_arguments: bool = False


_TOOLS = [{"name": "tool", "type": "function", "function": {
    "name": "tool1", "description": "Tool description",
    "parameters": {"type": "object", "properties": {"arg": {"type": "string", "description": "Arg description"}},
                   "required": ["arg"]}}}]  # fmt: skip


def _tool_conversation(args: Any, calls: int = 1) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "User message"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": f"call0000{i + 1}", "type": "function", "function": {"name": "tool1", "arguments": args}}
                for i in range(calls)
            ],
        },  # fmt: skip
        {"role": "tool", "content": "Tool response", "tool_call_id": "call00001"},
        {"role": "assistant", "content": "The tool response was 'tool response'"},
        {"role": "user", "content": "User message"},
    ]


@dataclass(slots=True)
class _Probe:
    ok: bool
    output: str
    variables: dict[str, Any]


def _probe(source: str, messages: list[Any], tools: list[Any] | None = None,
           extra: dict[str, Any] | None = None) -> _Probe:  # fmt: skip
    """``caps_try_execute``: render with tracked inputs, exceptions swallowed."""
    variables: dict[str, Any] = {
        "messages": tracked(messages), "tools": tracked(tools or []),
        "bos_token": tracked(""), "eos_token": tracked(""), "add_generation_prompt": True,
    }  # fmt: skip
    variables.update(extra or {})
    try:
        output = dialect.render(source, variables)
        return _Probe(True, output, variables)
    except Exception:  # llama.cpp ignores every exception of a probe (caps.cpp)
        return _Probe(False, "", variables)


def _preserve(enabled: bool) -> dict[str, Any]:
    """``caps_apply_preserve_reasoning``."""
    return {"preserve_thinking": enabled, "clear_thinking": not enabled,
            "truncate_history_thinking": not enabled, "drop_thinking": not enabled}  # fmt: skip


@lru_cache(maxsize=16)
def caps_of(source: str) -> Caps:
    """The capabilities llama.cpp finds in the template ``source`` (cached per source)."""
    r: dict[str, bool] = {}
    at: Callable[[_Probe, str], Any] = lambda p, key: p.variables[key]  # noqa: E731

    marker = "STRING_MARKER"
    p = _probe(source, [{"role": "user", "content": marker}])
    content = at(p, "messages")[0]["content"]
    ops = stats_of(content).ops
    checks_for_string = "test_is_string" in ops
    used_as_array = "selectattr" in ops or "array_access" in ops
    if used_as_array:
        r["supports_typed_content"] = True
    if not p.ok or (used_as_array and marker not in p.output):
        r["supports_string_content"] = False
    if checks_for_string:
        p = _probe(source, [{"role": "user", "content": []}])
        ops = stats_of(at(p, "messages")[0]["content"]).ops
        if p.ok and ("selectattr" in ops or "array_access" in ops):
            r["supports_typed_content"] = True

    p = _probe(source, [{"role": "system", "content": "System message"}, {"role": "user", "content": "User message"}])
    if not stats_of(at(p, "messages")[0]["content"]).used:
        r["supports_system_role"] = False

    p = _probe(source, _tool_conversation({"arg": "value"}), _TOOLS)
    if p.ok:
        tools, messages = at(p, "tools"), at(p, "messages")
        if not stats_of(tools[0]["function"]["name"]).used:
            r["supports_tools"] = False
        calls = messages[1]["tool_calls"]
        if not stats_of(calls).used:
            r["supports_tool_calls"] = False
        elif stats_of(calls[0]["function"]["arguments"]["arg"]).used:
            r["supports_object_arguments"] = True
    if not r.get("supports_object_arguments"):
        p = _probe(source, _tool_conversation('{"arg": "value"}'), _TOOLS)
        if not p.ok:
            r["supports_tool_calls"] = r["supports_tools"] = False
        else:
            tools, messages = at(p, "tools"), at(p, "messages")
            if not stats_of(tools[0]["function"]["name"]).used:
                r["supports_tools"] = False
            if not stats_of(messages[1]["tool_calls"]).used:
                r["supports_tool_calls"] = False

    args: Any = {"arg": "value"} if r.get("supports_object_arguments") else '{"arg": "value"}'
    p = _probe(source, _tool_conversation(args, calls=2), _TOOLS)
    if not p.ok or not stats_of(at(p, "messages")[1]["tool_calls"][1]["function"]).used:
        r["supports_parallel_tool_calls"] = False

    placeholder = "<REASONING_CONTENT_PLACEHOLDER>"
    p = _probe(source, [
        {"role": "user", "content": "User message"},
        {"role": "assistant", "content": "Assistant message", "reasoning_content": placeholder},
        {"role": "user", "content": "User message"},
        {"role": "assistant", "content": "Assistant message", "reasoning_content": "Reasoning content"},
        {"role": "user", "content": "User message"},
    ], extra={"enable_thinking": True, **_preserve(True)})  # fmt: skip
    if placeholder in p.output:
        r["supports_preserve_reasoning"] = True

    effort = tracked("low")
    p = _probe(source, [{"role": "user", "content": "User message"}],
               extra={"enable_thinking": True, "reasoning_effort": effort, "reasoning_strength": effort})  # fmt: skip
    r["supports_reasoning_effort"] = stats_of(effort).used
    return Caps(**r)
