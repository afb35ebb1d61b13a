"""Conversations beyond the basic one that a chat template must also render, for ``template-error``.

The basic check (``checks_template.py``) renders a conversation ending with a user message. Some
template bugs show only on other shapes llama.cpp renders: a conversation ending with an assistant
turn (``add_generation_prompt`` off: llama-cli renders its chat history so to find what a new
message adds, common/chat.cpp ``common_chat_format_single``), a request with tools, ``enable_thinking``
false (llama-server passes ``enable_thinking`` to every render, common/chat.cpp
``extra_context["enable_thinking"]``; ``chat_template_kwargs`` or ``--reasoning-budget 0`` make it
false), and a system message with several turns. Each is rendered on its own; a failure is reported
with the conversation(s) that triggered it. A tool call answered by a tool message is not tried:
llama.cpp probes a template for those and rewrites such messages when it cannot take them.

A template that refuses a system message is not an error (many do, on purpose): a conversation with
one is retried without it, as the basic check does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tui_tok.explore.chat.render import ChatTemplateError, render_chat
from tui_tok.explore.lint.finding import Finding, finding, sentence


@dataclass(frozen=True, slots=True)
class Conversation:
    """One conversation to render: what it is (for the message), its messages and variables."""

    name: str
    """Words after "fails on": ``a conversation ending with an assistant turn``."""
    messages: tuple[Mapping[str, Any], ...]
    add_generation_prompt: bool = True
    tools: bool = False
    """Render with the caller's sample tools."""
    extra: Mapping[str, object] = field(default_factory=dict)


_SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
_USER = {"role": "user", "content": "Hello there"}
_ASSISTANT = {"role": "assistant", "content": "Sure thing"}
_USER2 = {"role": "user", "content": "Thanks a lot"}

CONVERSATIONS: tuple[Conversation, ...] = (
    Conversation("a conversation ending with an assistant turn", (_USER, _ASSISTANT), add_generation_prompt=False),
    Conversation("a request with tools", (_SYSTEM, _USER), tools=True),
    Conversation("a request with enable_thinking false", (_USER,), extra={"enable_thinking": False}),
    Conversation("a system message and several turns", (_SYSTEM, _USER, _ASSISTANT, _USER2, _ASSISTANT, _USER2)),
)
"""The shapes tried, each alone (the basic one is the template check's)."""


@dataclass(frozen=True, slots=True)
class Failure:
    """A conversation the template fails on, and how."""

    conversation: Conversation
    error: ChatTemplateError


def failures(template: str, *, bos_token: str, eos_token: str, tool_forms: Sequence[list[Any] | None] = (None,),
             always_tools: bool = False, documents: list[Any] | None = None,
             conversations: tuple[Conversation, ...] = CONVERSATIONS) -> Iterator[Failure]:  # fmt: skip
    """Each conversation ``template`` cannot render: with its system message or, refused, without;
    with tools (``Conversation.tools``, or ``always_tools`` for a named tool template) in any of
    ``tool_forms``, the way the basic check tries them."""
    for conv in conversations:
        error: ChatTemplateError | None = None
        forms = tool_forms if conv.tools or always_tools else (None,)
        for tools, messages in ((t, m) for t in forms for m in _variants(conv.messages)):
            try:
                render_chat(template, messages, bos_token=bos_token, eos_token=eos_token,
                            add_generation_prompt=conv.add_generation_prompt, tools=tools,
                            documents=documents, extra=conv.extra)  # fmt: skip
                error = None
                break
            except ChatTemplateError as exc:
                error = error or exc
        if error is not None:
            yield Failure(conv, error)


def _variants(messages: tuple[Mapping[str, Any], ...]) -> Iterator[tuple[Mapping[str, Any], ...]]:
    yield messages
    if messages and messages[0].get("role") == "system":
        yield messages[1:]


def grouped(found: Iterator[Failure]) -> list[tuple[list[str], ChatTemplateError]]:
    """Failures with the same error (line and message) as one entry naming every conversation."""
    out: dict[tuple[int | None, str], tuple[list[str], ChatTemplateError]] = {}
    for f in found:
        out.setdefault((f.error.line, f.error.message), ([], f.error))[0].append(f.conversation.name)
    return list(out.values())


def describe(names: Sequence[str]) -> str:
    """``on A``, ``on A and on B``, ``on A, on B and on C``."""
    parts = [f"on {n}" for n in names]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def conversation_errors(key: str, template: str, bos: str, eos: str, tool_forms: Sequence[list[Any] | None],
                        documents: list[Any] | None, *, always_tools: bool) -> Iterator[Finding]:  # fmt: skip
    """``template-error`` findings for the conversations a template that renders the basic one fails on."""
    found = failures(template, bos_token=bos, eos_token=eos, tool_forms=tool_forms, always_tools=always_tools,
                     documents=documents)  # fmt: skip
    for names, error in grouped(found):
        yield finding("template-error", f"{key} renders a basic conversation but fails {describe(names)}: "
                      f"{sentence(str(error))}",
                      key=key, line=error.line, context=error.context)  # fmt: skip
