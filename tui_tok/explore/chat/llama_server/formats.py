"""The template families llama.cpp handles with their own code (``common_chat_try_specialized_template``
in common/chat.cpp, common/parsers/*.cpp), as far as the prompt is concerned.

Most families only build a parser for the model's answer and render the prompt unchanged; a few
rewrite the messages first (GPT-OSS and LFM2 copy the reasoning to ``thinking``, Ministral 3 turns
system and assistant content into blocks, Gemma 4's old templates fold tool results into the
assistant turn, DeepSeek V4 sorts tool results) or fix the end of the prompt (Gemma 4 reopens a
model turn, GPT-OSS ends a history with ``<|end|>``). A continued final message is appended after the
family's own generation prompt.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tui_tok.explore.chat.llama_server.messages import Msg


@dataclass(frozen=True, slots=True)
class Family:
    """A family llama.cpp recognises by its template source."""

    name: str
    """``LOG_DBG`` name in common_chat_try_specialized_template."""
    format: str
    """``common_chat_format_name`` of its result."""
    adjust: Callable[[list[dict[str, Any]], str], list[dict[str, Any]] | None] | None = None
    """Rewrites the messages (the result replaces them; not normalised again), or None."""
    think: tuple[str, str] = ("<think>", "</think>")
    """Reasoning start/end text written when continuing a message (its ``THINK_START``/``THINK_END``)."""
    gen_prompt: str = ""
    """The fixed generation prompt written before a continued message, "" for the rendered one."""


def _copy_thinking(drop_content_with_calls: bool) -> Callable[[list[dict[str, Any]], str], list[dict[str, Any]]]:
    def adjust(messages: list[dict[str, Any]], src: str) -> list[dict[str, Any]]:
        out = []
        for msg in messages:
            msg = dict(msg)
            if isinstance(msg.get("reasoning_content"), str):
                msg["thinking"] = msg["reasoning_content"]
                if drop_content_with_calls and msg.get("tool_calls"):
                    msg.pop("content", None)
            out.append(msg)
        return out

    return adjust


def _ministral_blocks(messages: list[dict[str, Any]], src: str) -> list[dict[str, Any]]:
    """parsers/ministral3.cpp: system and assistant content as ``thinking``/``text`` blocks."""
    out = []
    for msg in messages:
        if msg.get("role") not in ("system", "assistant"):
            out.append(msg)
            continue
        content: list[Any] = []
        if isinstance(msg.get("reasoning_content"), str):
            content.append({"type": "thinking", "thinking": msg["reasoning_content"]})
        if "content" in msg:
            if isinstance(msg["content"], str):
                content.append({"type": "text", "text": msg["content"]})
            elif isinstance(msg["content"], list):
                content.extend(msg["content"])  # common_json::insert of an array: its items
        adjusted = {k: v for k, v in msg.items() if k != "reasoning_content"}
        adjusted["content"] = content
        out.append(adjusted)
    return out


def _gemma4_tool_turns(messages: list[dict[str, Any]], src: str) -> list[dict[str, Any]] | None:
    """``workaround::convert_tool_responses_gemma4`` (parsers/gemma4.cpp), for the templates without
    the "OpenAI Chat Completions" comment: assistant(tool calls) + tool results + final answer as one
    assistant message with ``tool_responses``."""
    if "{#- OpenAI Chat Completions:" in src:
        return None
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(messages):
        msg = messages[i]
        calls = msg.get("tool_calls")
        if msg.get("role") != "assistant" or not isinstance(calls, list) or not calls:
            out.append(msg)
            i += 1
            continue
        reasoning = msg.get("reasoning_content") if isinstance(msg.get("reasoning_content"), str) else None
        tool_calls = list(calls)
        responses: list[dict[str, Any]] = []
        i += 1
        while i < len(messages) and messages[i].get("role") == "tool":
            cur = messages[i]
            response: Any = None
            if "content" in cur:
                response = cur["content"]
                if isinstance(response, str):
                    try:
                        response = json.loads(response)
                    except ValueError:
                        pass
            name = ""
            if len(responses) < len(tool_calls):
                fn = tool_calls[len(responses)].get("function")
                if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                    name = fn["name"]
            if not name:
                name = cur.get("tool_call_id", "") if isinstance(cur.get("tool_call_id"), str) else ""
            responses.append({"name": name, "response": response})
            i += 1
        content: Any = None
        if i < len(messages) and messages[i].get("role") == "assistant":
            nxt = messages[i]
            c = nxt.get("content")
            if not nxt.get("tool_calls") and ((isinstance(c, str) and c) or (isinstance(c, list) and c)):
                content = c
                i += 1
        built: dict[str, Any] = {"role": "assistant", "tool_calls": tool_calls}
        if responses:
            built["tool_responses"] = responses
        if content is not None:
            built["content"] = content
        if reasoning is not None:
            built["reasoning_content"] = reasoning
        out.append(built)
    return out


def _deepseek_v4_sort(messages: list[dict[str, Any]], src: str) -> list[dict[str, Any]] | None:
    """parsers/deepseek.cpp ``deepseek_v4_sort_tool_results`` (V4 only: no ``function_calls``)."""
    if "function_calls" in src:
        return None
    out = list(messages)
    order: dict[str, int] = {}
    i = 0
    while i < len(out):
        msg = out[i]
        role = msg.get("role", "")
        if role == "assistant" and isinstance(msg.get("tool_calls"), list) and msg["tool_calls"]:
            order = {c["id"]: n for n, c in enumerate(msg["tool_calls"]) if isinstance(c.get("id"), str) and c["id"]}
            i += 1
            continue
        if role not in ("user", "tool"):
            i += 1
            continue
        end = i
        positions = []
        while end < len(out) and out[end].get("role") in ("user", "tool"):
            if out[end].get("role") == "tool":
                positions.append(end)
            end += 1
        if len(positions) > 1 and order:
            results = sorted((out[p] for p in positions), key=lambda m: order.get(m.get("tool_call_id", ""), 0))
            for p, r in zip(positions, results, strict=True):
                out[p] = r
        i = end
    return out


def _has(*needles: str, without: tuple[str, ...] = ()) -> Callable[[str], bool]:
    return lambda src: all(n in src for n in needles) and not any(n in src for n in without)


_FAMILIES: list[tuple[Callable[[str], bool], Family]] = [
    (
        _has("[SYSTEM_PROMPT]", "[TOOL_CALLS]", "[ARGS]", without=("[CALL_ID]",)),
        Family("Ministral/Magistral Large 3", "peg-native", _ministral_blocks, ("[THINK]", "[/THINK]")),
    ),
    (
        _has("<|channel|>"),
        Family(
            "GPT-OSS",
            "peg-native",
            _copy_thinking(True),
            ("<|channel|>analysis<|message|>", "<|end|><|start|>assistant<|channel|>final<|message|>"),
            "<|start|>assistant",
        ),
    ),  # fmt: skip
    (_has("<atem:function_calls>", "<|eom|>"), Family("Muse Glimmer", "peg-native")),
    (_has(">>>all", ">>>${recipient}"), Family("Functionary v3.2", "peg-native")),
    (
        _has("<|tool_calls_section_begin|>", "<|tool_call_begin|>"),
        Family("Kimi K2 Thinking", "peg-native", gen_prompt="<|im_assistant|>assistant<|im_middle|>"),
    ),
    (_has("<|open|>", "<|close|>", "<|end_of_msg|>"), Family("Kimi K3", "peg-native")),
    (_has("<role>ASSISTANT</role>", "<arg_key>"), Family("Ling 3.0 (Bailing V3)", "peg-native")),
    (_has("<|START_TEXT|>", "<|START_ACTION|>"), Family("Cohere2 MoE", "peg-native")),
    (_has("<|tool_list_start|>", "<|tool_list_end|>"), Family("LFM2", "peg-native", _copy_thinking(False))),
    (_has("List of tools: [", without=("<|tool_list_start|>",)), Family("LFM2.5", "peg-native", _copy_thinking(False))),
    (_has("<|role_sep|>", "<|message_sep|>", without=("<|function_call|>",)), Family("GigaChatV3", "peg-native")),
    (_has("]<]minimax[>[", "<tool_call>", "<invoke name="), Family("MiniMax-M3", "peg-minimax-m3")),
    (
        lambda s: "dsml_token" in s and "DSML" in s and ("function_calls" in s or "tool_calls" in s),
        Family("DeepSeek V3.2/V4", "peg-native", _deepseek_v4_sort),
    ),
    (
        _has("'<|tool_call>call:'"),
        Family("Gemma4", "peg-gemma4", _gemma4_tool_turns, ("<|channel>thought\n", "<channel|>")),
    ),
    (_has("Tool usage guidelines:", '<function name="', '<param name="'), Family("MiniCPM5", "peg-native")),
    (
        _has("<tool_call>", "<function=", "<parameter=", without=("'<tool_call><function=' ~ tool_call.name ~ '>'",)),
        Family("Qwen3-Coder", "peg-native"),
    ),
]


def family_of(src: str) -> Family | None:
    """The specialised family of a template source, in llama.cpp's order of detection; None for the
    generic path (the differential autoparser, which renders the prompt unchanged)."""
    for test, family in _FAMILIES:
        if test(src):
            return family
    return None


def continuation(family: Family | None, gen_prompt: str, msg: Msg, kind: str) -> str:
    """What a continued final message appends (``kind``: ``content`` or ``reasoning_content``).

    GPT-OSS, Kimi K2 and Gemma 4 write their own generation prompt (``gen_prompt`` is Gemma 4's model
    turn opener, or "") then the reasoning block (closed before the content); the others take the
    rendered generation prompt up to its reasoning start tag, then the reasoning (closed for content),
    then the content (``peg_generator::generate_parser``; the tags are the family's, ``<think>`` for
    the generic path, where llama.cpp's template analysis finds them). Not checked against the oracle
    (it has no continuation).
    """
    content = msg.render_content() if kind == "content" else ""
    if family is not None and family.name in ("GPT-OSS", "Kimi K2 Thinking", "Gemma4"):
        start, end = family.think
        head = family.gen_prompt or gen_prompt
        return head + start + msg.reasoning_content + (end + content if kind == "content" else "")
    start, end = family.think if family is not None else ("<think>", "</think>")
    if start in gen_prompt:
        head = gen_prompt[: gen_prompt.find(start)] + start + msg.reasoning_content
        return head + (end + content if kind == "content" else "")
    return gen_prompt + content
