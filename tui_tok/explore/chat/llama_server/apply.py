"""``common_chat_templates_apply`` as ``llama-server --jinja`` calls it (common/chat.cpp,
tools/server/server-common.cpp in llama-cpp-python 0.3.36), up to the prompt text.

The order is llama.cpp's: pick the template (the file's ``tool_use`` one when tools are given), probe
its capabilities, round-trip the messages through ``common_chat_msg``, set a continued final message
aside, map ``developer`` to ``system`` (except for GPT-OSS), fold a system message into the first
user message when the template has no system role, parse tool-call arguments for a template that
reads them as objects, add the date variables and the request's ``chat_template_kwargs``, then
render (the family's own rewrites first) and drop a leading BOS / trailing EOS text the vocab adds
itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

import jinja2

from tui_tok.explore.chat.llama_server import dialect, formats
from tui_tok.explore.chat.llama_server.caps import Caps, caps_of
from tui_tok.explore.chat.llama_server.messages import (
    Msg,  # fmt: skip
    fold_system,
    normalize,
    parse_arguments,
    parse_messages,
    parse_tools,
    to_json,
)
from tui_tok.explore.chat.llama_server.values import LlamaError

CHATML_TEMPLATE = (
    "{%- for message in messages -%}\n"
    "  {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' -}}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}\n"
    "  {{- '<|im_start|>assistant\n' -}}\n"
    "{%- endif -%}"
)
"""``CHATML_TEMPLATE_SRC``: what llama.cpp renders with when the file has no template."""

CONTINUATIONS = ("auto", "content", "reasoning_content")
"""``continue_final_message`` values (``common_chat_continuation_parse``; ``true`` is ``auto``)."""


@dataclass(frozen=True, slots=True)
class LlamaServerRequest:
    """What a chat request can set that reaches the template (server-common.cpp)."""

    add_generation_prompt: bool = True
    enable_thinking: bool = True
    """The server's default with ``--reasoning auto`` on a template that can think."""
    reasoning_effort: str | None = None
    """``"none"`` turns thinking off; another value is the ``reasoning_effort`` variable."""
    chat_template_kwargs: Mapping[str, Any] = field(default_factory=dict)
    continue_final_message: str | None = None
    """None, ``"auto"``, ``"content"`` or ``"reasoning_content"``."""
    now: datetime | None = None
    """The time the date variables and ``strftime_now`` read (None: now)."""
    prefill_assistant: bool = True
    """The server's ``--prefill-assistant`` (on by default): a conversation ending with an assistant
    message continues it. Off is ``common_chat_templates_apply`` called directly (the oracle)."""


@dataclass(frozen=True, slots=True)
class LlamaServerRender:
    """The prompt text llama-server builds, and how it got there."""

    prompt: str
    template: str
    """Which template was used: ``"default"`` or ``"tool_use"``."""
    format: str
    """``common_chat_format_name`` of the result."""
    family: str
    """The specialised family llama.cpp recognised, "" for the generic path."""
    caps: Caps
    thinking: bool
    """``enable_thinking`` as the template saw it."""
    dropped_bos: bool = False
    """The render began with the BOS text, dropped because the vocabulary adds BOS itself (``common/chat.cpp``)."""
    dropped_eos: bool = False
    """The render ended with the EOS text, dropped because the vocabulary adds EOS itself."""


def template_sources(default: str | None, tool_use: str | None) -> tuple[str, str | None]:
    """``common_chat_templates_init``: the default source (the ``tool_use`` one, else ChatML, when the
    file has none) with llama.cpp's two source patches, and the ``tool_use`` source."""
    src = default or ""
    if not src or src == "chatml":
        src = tool_use or CHATML_TEMPLATE
    if "<|channel|>" in src and "in message.content or" in src:
        src = src.replace('{%- if "<|channel|>analysis<|message|>" in message.content or '
                          '"<|channel|>final<|message|>" in message.content %}', "{%- if false %}")  # fmt: skip
    if "[TOOL_CALLS]" in src and "if (message['content'] is none or" in src:
        src = src.replace("{%- if (message['content'] is none or message['content'] == '' or "
                          "message['content']|length == 0) and (message['tool_calls'] is not defined or "
                          "message['tool_calls'] is none or message['tool_calls']|length == 0) %}", "{%- if false %}")  # fmt: skip
    return src, tool_use or None


def server_inputs(request: LlamaServerRequest) -> tuple[bool, dict[str, Any]]:
    """``enable_thinking`` and the template kwargs after the server's request parsing: a kwarg
    ``enable_thinking`` overrides the default, ``reasoning_effort: "none"`` turns thinking off."""
    thinking = request.enable_thinking
    kwargs = dict(request.chat_template_kwargs)
    if "enable_thinking" in kwargs:
        value = kwargs["enable_thinking"]
        if value is True or value is False:
            thinking = value
        elif isinstance(value, str):
            raise LlamaError('invalid type for "enable_thinking" (expected boolean, got string)')
    if request.reasoning_effort is not None:
        if request.reasoning_effort == "none":
            thinking = False
            kwargs.pop("reasoning_effort", None)
        elif request.reasoning_effort:
            kwargs["reasoning_effort"] = request.reasoning_effort
    return thinking, kwargs


def apply(
    default_template: str | None,
    messages: Sequence[Mapping[str, Any]],
    *,
    tool_use_template: str | None = None,
    tools: Sequence[Any] | None = None,
    bos_token: str = "",
    eos_token: str = "",
    add_bos: bool = False,
    add_eos: bool = False,
    request: LlamaServerRequest = LlamaServerRequest(),
) -> LlamaServerRender:
    """The prompt llama-server renders; raises ``LlamaError`` (llama.cpp's refusal) or a jinja2 error."""
    default_src, tool_src = template_sources(default_template, tool_use_template)
    msgs = parse_messages(messages)
    tools_json = parse_tools(tools)
    use_tools = tools_json is not None and tool_src is not None
    src = tool_src if use_tools and tool_src is not None else default_src
    thinking, kwargs = server_inputs(request)
    agp = request.add_generation_prompt
    cont = request.continue_final_message
    if cont is None and request.prefill_assistant and msgs and msgs[-1].role == "assistant":
        if len(msgs) >= 2 and msgs[-2].role == "assistant":
            raise LlamaError("Cannot have 2 or more assistant messages at the end of the list.")
        cont, agp = "auto", False
    if cont is not None and agp:
        raise LlamaError("Cannot set both add_generation_prompt and continue_final_message to true.")
    if cont is not None and msgs and msgs[-1].role == "assistant" and msgs[-1].tool_calls:
        raise LlamaError("Cannot continue an assistant message that contains tool calls.")
    rendered_msgs = msgs
    if "You have access to the following functions in JSONSchema format" in src:
        rendered_msgs = [_trimmed(m) for m in msgs]  # StepFun (issue #24181)
    caps = caps_of(src)
    messages_json = normalize([to_json(m) for m in rendered_msgs], caps)
    continued: Msg | None = None
    if cont is not None:
        agp = False
        if msgs:
            continued = msgs[-1]  # as the request has it (not trimmed)
            messages_json.pop()
            if cont == "auto":
                cont = "content"
                if continued.reasoning_content and not continued.content and not continued.parts:
                    cont = "reasoning_content"
    if "<|channel|>" not in src:
        messages_json = [{**m, "role": "system"} if m.get("role") == "developer" else m for m in messages_json]
    if not caps.supports_system_role:
        fold_system(messages_json)
    if caps.supports_tool_calls:
        messages_json = [{**m, "content": ""} if "tool_calls" in m and "content" not in m else m for m in messages_json]
    if caps.supports_object_arguments:
        parse_arguments(messages_json)
    now = request.now or datetime.now()
    context: dict[str, Any] = {"datetime": now.strftime("%b %d %Y"), "date_string": now.strftime("%d %b %Y")}
    context.update(kwargs)

    family = formats.family_of(src)
    override = family.adjust(messages_json, src) if family and family.adjust else None

    def applied(with_gen: bool) -> Applied:
        return direct_apply(src, override if override is not None else normalize(messages_json, caps), tools_json,
                            context, with_gen, thinking, bos_token, eos_token, add_bos, add_eos, now)  # fmt: skip

    def render(with_gen: bool) -> str:
        return applied(with_gen).text

    first = applied(agp)
    prompt = first.text
    fmt = family.format if family else "peg-native"
    if family is not None and family.name == "Gemma4" and agp and prompt.endswith("<turn|>\n"):
        prompt += "<|turn>model\n"
    if family is not None and family.name == "GPT-OSS" and not agp:
        at = prompt.rfind("<|return|>")
        if at >= 0:
            prompt = prompt[:at] + "<|end|>" + prompt[at + len("<|return|>") :]
    if continued is not None and cont is not None:
        if family is not None and family.name == "Gemma4":
            head = "<|turn>model\n" if prompt.endswith("<turn|>\n") else ""
        else:
            head = generation_prompt(render(False), render(True))
        prompt += formats.continuation(family, head, continued, cont)
    return LlamaServerRender(prompt=prompt, template="tool_use" if use_tools else "default", format=fmt,
                             family=family.name if family else "", caps=caps, thinking=thinking,
                             dropped_bos=first.dropped_bos, dropped_eos=first.dropped_eos)  # fmt: skip


def generation_prompt(without: str, with_gen: str) -> str:
    """``common_chat_template_generation_prompt``: what adding the generation prompt appends, after
    the common prefix of the two renders."""
    n = 0
    limit = min(len(without), len(with_gen))
    while n < limit and without[n] == with_gen[n]:
        n += 1
    return with_gen[n:]


def direct_apply(src: str, messages: list[dict[str, Any]], tools: list[Any] | None, context: Mapping[str, Any],
                 add_generation_prompt: bool, enable_thinking: bool, bos: str, eos: str, add_bos: bool,
                 add_eos: bool, now: datetime) -> Applied:  # fmt: skip
    """``common_chat_template_direct_apply_impl``: the variables, the render, BOS/EOS texts dropped."""
    variables: dict[str, Any] = {"messages": messages, "bos_token": bos, "eos_token": eos,
                                 "enable_thinking": enable_thinking}  # fmt: skip
    if tools:
        variables["tools"] = tools
    variables.update(context)
    if add_generation_prompt:
        variables["add_generation_prompt"] = True
    preserve = variables.get("preserve_reasoning")
    if isinstance(preserve, bool):
        variables.update(preserve_thinking=preserve, clear_thinking=not preserve,
                         truncate_history_thinking=not preserve, drop_thinking=not preserve)  # fmt: skip
    effort = variables.get("reasoning_effort")
    if isinstance(effort, str) and effort:
        variables.update(reasoning_effort=effort, reasoning_strength=effort)
    variables = _fresh(variables)
    variables["strftime_now"] = now.strftime
    result = dialect.render(src, variables)
    dropped_bos = add_bos and bool(bos) and result.startswith(bos)
    if dropped_bos:
        result = result[len(bos) :]
    dropped_eos = add_eos and bool(eos) and result.endswith(eos)
    if dropped_eos:
        result = result[: len(result) - len(eos)]
    return Applied(result, dropped_bos, dropped_eos)


class Applied(NamedTuple):
    """A render with the BOS/EOS texts the vocabulary adds itself dropped, and whether they were there."""

    text: str
    dropped_bos: bool
    dropped_eos: bool


def _fresh(variables: dict[str, Any]) -> dict[str, Any]:
    """A deep copy: templates can mutate lists (``append``) and must not change our inputs."""
    copied: dict[str, Any] = json.loads(json.dumps(variables, ensure_ascii=False, default=_undefined_to_null))
    return copied


def _undefined_to_null(value: Any) -> Any:
    if isinstance(value, jinja2.Undefined):
        return None
    raise TypeError(f"not JSON: {type(value).__name__}")


def _trimmed(msg: Msg) -> Msg:
    """``workaround::trim_all_content``."""
    return Msg(role=msg.role, content=msg.content.strip(" \t\n\r\f\v"),
               parts=[(k, t.strip(" \t\n\r\f\v") if k == "text" else t) for k, t in msg.parts],
               tool_calls=msg.tool_calls, reasoning_content=msg.reasoning_content.strip(" \t\n\r\f\v"),
               tool_name=msg.tool_name, tool_call_id=msg.tool_call_id)  # fmt: skip
