"""prefix_reuse and budget on real templates: where llama-server's KV cache stops being reusable
between two requests of a conversation, and the prompt's tokens against the trained context."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import pytest

from support import ASSETS
from tui_tok.errors import TuiTokError
from tui_tok.explore.chat.llama_server.apply import LlamaServerRequest
from tui_tok.explore.chat.prompt import ChatPrompt, chat_prompt
from tui_tok.explore.chat.render import templates_of
from tui_tok.explore.chat.reuse import budget, common_prefix, context_length, describe_reuse, prefix_reuse, tools_count
from tui_tok.gguf import read_gguf
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer import Tokenizer

QWEN3 = str(ASSETS / "qwen3-vocab.gguf")
PHI3 = str(ASSETS / "ggml-vocab-phi-3.gguf")
THOUGHT = [
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello!", "reasoning_content": "greet back"},
    {"role": "user", "content": "2+2?"},
]


@cache
def _load(path: str) -> tuple[Tokenizer, str, dict[str, Any]]:
    metadata = read_gguf(path).metadata
    return load_tokenizer(path), templates_of(metadata)["default"], metadata


def _builder(path: str, runtime: str, tools: list[Any] | None = None) -> Any:
    tok, template, _ = _load(path)

    def build(msgs: Sequence[Mapping[str, Any]], agp: bool) -> ChatPrompt:
        return chat_prompt(tok, template, msgs, add_generation_prompt=agp, locate_messages=False, runtime=runtime,
                           tools=tools, request=LlamaServerRequest(add_generation_prompt=agp, prefill_assistant=False))  # fmt: skip

    return build


@pytest.mark.parametrize("runtime", ["llama-server", "transformers"])
def test_qwen3_reasoning_in_history_breaks_the_prefix(runtime: str) -> None:
    tok = _load(QWEN3)[0]
    build = _builder(QWEN3, runtime)
    [turn] = prefix_reuse(tok, THOUGHT, build)
    cached = (
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\ngreet back\n</think>\n\nHello!<|im_end|>\n"
    )
    following = build(THOUGHT, True)
    assert following.text == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n" \
                             "<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n"  # fmt: skip
    cached_ids = tok.encode(cached, add_special=True, parse_special=True)
    assert (turn.message, turn.next_message) == (1, 2)
    assert (turn.cached, turn.next_prompt) == (len(cached_ids), len(following.ids))
    # the slot keeps everything up to the assistant header; the next prompt drops the <think> block
    assert (
        turn.shared
        == common_prefix(cached_ids, following.ids)
        == len(
            tok.encode("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", add_special=True, parse_special=True)
        )
    )
    assert turn.broken and turn.char == len("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")
    assert turn.cached_excerpt.startswith("<think>\ngreet back") and turn.next_excerpt.startswith("Hello!<|im_end|>")
    assert describe_reuse([turn]).startswith(f"KV: 1/1 turns break · #1 {turn.shared}/{turn.cached}: '<think>\\n")


def test_qwen3_without_reasoning_still_breaks_on_the_empty_think_block() -> None:
    """Qwen3 renders the last assistant turn (the one the model just wrote) with an empty <think> block
    and earlier ones without: the cache breaks even when no reasoning was given."""
    tok = _load(QWEN3)[0]
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": "ok"},
    ]
    [turn] = prefix_reuse(tok, messages, _builder(QWEN3, "llama-server"))
    assert (
        turn.broken and turn.cached_excerpt.startswith("<think>\n\n</think>") and turn.next_excerpt.startswith("Hello!")
    )


def test_phi3_history_is_rendered_as_generated_all_cached_ids_reused() -> None:
    tok = _load(PHI3)[0]
    messages = [{"role": "system", "content": "Be terse."}, *THOUGHT[:1], {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}, {"role": "user", "content": "ok"}]  # fmt: skip
    build = _builder(PHI3, "llama-server")
    turns = prefix_reuse(tok, messages, build)
    assert [(t.message, t.next_message) for t in turns] == [(2, 3), (4, 5)]
    for t in turns:
        assert not t.broken and t.char is None and t.shared == t.cached < t.next_prompt
        # the cache is the request's prompt followed by the answer as phi-3 writes it, <|end|> included (the newline after it is swallowed: RSTRIP)
        assert tok.decode(build(messages[: t.next_message + 1], True).ids[: t.shared], unparse_special=True).endswith(
            "Hello!<|end|>" if t.message == 2 else "4<|end|>"
        )
    assert prefix_reuse(tok, messages, build, max_turns=1) == turns[-1:]
    assert describe_reuse(turns) == "KV: all 2 turns reused"


def test_a_refused_turn_is_recorded_not_raised() -> None:
    tok = _load(PHI3)[0]

    def refuse(msgs: Sequence[Mapping[str, Any]], agp: bool) -> ChatPrompt:
        raise TuiTokError("template-error: no")

    [turn] = prefix_reuse(tok, THOUGHT, refuse)
    assert turn.error == "template-error: no" and not turn.broken
    assert describe_reuse([turn]) == "KV: 1/1 turns break · #1 not compared: template-error: no"


def test_budget_per_message_tools_and_context() -> None:
    tok, template, metadata = _load(PHI3)
    tools = [{"type": "function", "function": {"name": "add", "description": "Add two numbers",
                                               "parameters": {"type": "object", "properties": {}}}}]  # fmt: skip
    messages = THOUGHT[:1]
    with_tools = chat_prompt(tok, template, messages, runtime="llama-server", tools=tools)
    without = chat_prompt(tok, template, messages, runtime="llama-server")
    assert context_length(metadata) == 4096  # phi3.context_length in the vocab file
    record = budget(with_tools, context_length(metadata), len(with_tools.ids) - len(without.ids))
    assert record["tokens"] == len(with_tools.ids) and record["left"] == 4096 - len(with_tools.ids)
    assert [m["tokens"] for m in record["messages"]] == [s.token_count for s in with_tools.messages]
    assert sum(m["tokens"] for m in record["messages"]) + record["generation_prompt"] == len(with_tools.ids)
    assert record["tools"] == len(with_tools.ids) - len(without.ids)
    assert context_length(_load(QWEN3)[2]) is None  # a vocab-only file without it: unknown
    assert describe_reuse([], budget(without, None, None)) == f"{len(without.ids)}/? ctx"


def test_tools_not_counted_when_the_bare_render_is_refused_and_a_newer_request_stops_the_turns() -> None:
    tok, template, _ = _load(PHI3)
    prompt = chat_prompt(tok, template, THOUGHT, runtime="llama-server")

    def refuse() -> ChatPrompt:
        raise TuiTokError("template-error: tools is undefined")

    tokens, method = tools_count(refuse, prompt, [{"type": "function"}])
    assert (
        tokens is None
        and method == "not counted: without tools the template refuses (template-error: tools is undefined)"
    )
    assert budget(prompt, None, tokens, method)["tools_method"] == method
    assert tools_count(refuse, prompt, None) == (None, "with tools minus without")
    assert budget(prompt, None, None)["tools_method"] is None
    assert prefix_reuse(tok, THOUGHT, _builder(PHI3, "llama-server"), cancelled=lambda: True) == []
