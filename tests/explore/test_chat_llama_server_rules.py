"""The llama-server runtime's rules, one by one (the oracle comparison is test_chat_llama_server.py):
llama.cpp's Jinja dialect, its capability probes and message rewrites, the server's request rules,
its refusals as one line."""

from __future__ import annotations

from datetime import datetime

import pytest

from support import ASSETS, HAVE_SHARED, SHARED, SHARED_MISSING
from tui_tok.explore.chat.llama_server import LlamaServerRequest
from tui_tok.explore.chat.llama_server.caps import caps_of
from tui_tok.explore.chat.llama_server.runtime import render_llama_server
from tui_tok.explore.chat.prompt import chat_prompt
from tui_tok.explore.chat.render import ChatTemplateError, templates_of
from tui_tok.gguf import read_gguf
from tui_tok.loader import load_tokenizer

SYSTEM_USER = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Hi there"}]
USER = [{"role": "user", "content": "Hi"}]


def render(template: str, messages: list[dict] = USER, **request: object) -> str:  # type: ignore[type-arg]
    return render_llama_server(template, messages, request=LlamaServerRequest(**request)).prompt  # type: ignore[arg-type]


# --- the dialect ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("template", "expected"), [
    ("{{ 'a' + 1 }}|{{ 1 + 2.5 }}|{{ 'x' + none }}|{{ none }}|{{ true }}|{{ 2.0 }}", "a1|3.5|x||True|2.0"),
    ("{{ [1, 'a', none, [2.0, true]] }}|{{ {'a': 1} }}|{{ 3.0 | string }}|{{ [1, 'a'] | string }}", "1a2.0True||3|[1, 'a']"),
    ("{{ 'x' ~ none ~ 1 }}|{{ none | default('d') }}|{{ '' | default('e') }}|{{ '' | default('e', true) }}", "x1|d||e"),
    ("{{ 'a' in ('a', 'b') }}{{ 'b' in 'abc' }}{{ 'k' in {'k': 1} }}{{ 1 in nothing }}{{ 'z' not in ['a'] }}", "TrueTrueTrueFalseTrue"),
    ("{% for k in {'a': 1, 'b': 2} %}{{ k }}{% endfor %}{% for k, v in {'a': 1} %}{{ k }}={{ v }}{% endfor %}", "aba=1"),
    ("{% set l = [] %}{% set _ = l.append(3) %}{{ l | tojson }}", "[3]"),  # transformers' sandbox refuses
    ("{{ nothing.items() | length }}{% for k in nothing.keys %}x{% endfor %}", "0"),
    ('{{ {"b": [1, "é"], "a": {}} | tojson }}', '{"b": [1, "é"], "a": {}}'),
    ('{{ [1, {"a": 2}] | tojson(indent=2) }}', '[\n  1,\n  {\n    "a": 2\n  }\n]'),
    ("{{ [1, 2, 3] | map('string') | tojson }}", '["1", "2", "3"]'),  # a generator is an array
    ("{{ {'items': 1}.items() | list | length }}", "1"),  # obj.items is the builtin, not the key
    ("{{ 'ab' * 2 }}{{ 3 * 'c' }}", "ababccc"),
    ("{{ 'a' | safe + '<' }}", "a<"),  # no HTML escaping after |safe
])  # fmt: skip
def test_dialect(template: str, expected: str) -> None:
    assert render(template) == expected


@pytest.mark.parametrize(("template", "message"), [
    ("{{ [1] | tojson(sort_keys=true) }}", "tojson sort_keys=true not implemented"),
    ("\n{{ raise_exception('No system role') }}", "template line 2, column 4: No system role"),
    ("{{ 'a'.find('a') }}", "template line 1, column 8: access to attribute 'find'"),  # llama.cpp's methods only
    ("{{ 1 ~ 2 }}", 'Unknown operator "~" between Integer and Integer'),
    ("{{ nothing in ['a'] }}", "Cannot perform operation in on undefined values"),
    ("{{ ['a'] in ['a'] }}", 'Unknown operator "in" between Array and Array'),
    ("{% for c in 'abc' %}{% endfor %}", "Expected iterable or object type in for loop: got String"),
])  # fmt: skip
def test_dialect_refusals_are_one_line(template: str, message: str) -> None:
    with pytest.raises(ChatTemplateError) as info:
        render(template)
    assert message in str(info.value) and "\n" not in str(info.value)


# --- capabilities and message rewrites -----------------------------------------------------------

NO_SYSTEM = ("{% if messages[0].role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
             "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}")  # fmt: skip
OBJECT_ARGS = ("{% for m in messages %}{% for c in m.tool_calls %}{{ c.function.name }}("
               "{% for k, v in c.function.arguments | items %}{{ k }}={{ v }}{% endfor %}){% endfor %}{{ m.content }};"
               "{% endfor %}")  # fmt: skip
TYPED = "{% for m in messages %}{% for p in m.content %}{{ p.text }}|{% endfor %}{% endfor %}"


def test_system_folded_into_the_first_user_message_without_a_system_role() -> None:
    assert not caps_of(NO_SYSTEM).supports_system_role
    assert render(NO_SYSTEM, SYSTEM_USER) == "<user>You are terse.\nHi there"
    assert render(NO_SYSTEM, SYSTEM_USER[:1]) == ""  # alone: dropped


def test_tool_call_arguments_parsed_for_a_template_reading_them_as_objects() -> None:
    assert caps_of(OBJECT_ARGS).supports_object_arguments
    call = {"type": "function", "function": {"name": "w", "arguments": '{"city": "Oslo"}'}}
    messages = [{"role": "assistant", "content": None, "tool_calls": [call]}]
    assert render(OBJECT_ARGS, messages, prefill_assistant=False) == "w(city=Oslo);"
    with pytest.raises(ChatTemplateError, match="Cannot continue an assistant message that contains tool calls"):
        render(OBJECT_ARGS, messages)  # the server prefills a last assistant message


def test_string_content_as_typed_parts_for_a_template_reading_parts() -> None:
    caps = caps_of(TYPED)
    assert caps.supports_typed_content and not caps.supports_string_content
    assert render(TYPED, [{"role": "user", "content": "Hi"}]) == "Hi|"


def test_developer_is_system_and_null_content_is_empty() -> None:
    t = "{% for m in messages %}{{ m.role }}:{{ m.content | tojson }};{% endfor %}"
    call = {"type": "function", "function": {"name": "w", "arguments": {"a": 1}}}
    messages = [{"role": "developer", "content": "d"}, {"role": "assistant", "content": None, "tool_calls": [call]}]
    assert render(t, messages, prefill_assistant=False) == 'system:"d";assistant:"";'


def test_round_trip_keeps_llama_cpp_fields_only() -> None:
    t = "{% for m in messages %}{{ m | tojson }}{% endfor %}"
    message = {"role": "assistant", "content": "x", "extra": 1, "reasoning_content": "",
               "tool_calls": [{"type": "function", "id": "c1", "function": {"name": "w", "arguments": {"a": 1}}}]}  # fmt: skip
    # tojson reads the arguments deeply: llama.cpp finds the template reads them as objects and parses them
    assert render(t, [message], prefill_assistant=False) == ('{"role": "assistant", "content": "x", "tool_calls": [{"type": "function", '
                                    '"function": {"name": "w", "arguments": {"a": 1}}, "id": "c1"}]}')  # fmt: skip


# --- the request ---------------------------------------------------------------------------------

THINK = "{{ enable_thinking }}|{{ reasoning_effort }}|{{ add_generation_prompt is defined }}|{{ custom }}"


def test_request_controls() -> None:
    assert render(THINK) == "True||True|"  # thinking on by default; no effort
    assert render(THINK, add_generation_prompt=False) == "True||False|"  # not set at all, as llama.cpp
    assert render(THINK, reasoning_effort="high") == "True|high|True|"
    assert render(THINK, reasoning_effort="none") == "False||True|"
    assert render(THINK, chat_template_kwargs={"enable_thinking": False, "custom": [1, "a"]}) == "False||True|1a"
    with pytest.raises(ChatTemplateError, match='invalid type for "enable_thinking"'):
        render(THINK, chat_template_kwargs={"enable_thinking": "no"})


def test_date_variables_and_strftime_now_read_the_request_time() -> None:
    t = "{{ date_string }}|{{ strftime_now('%Y') }}"
    assert render(t, now=datetime(2025, 3, 9)) == "09 Mar 2025|2025"


def test_continue_final_message() -> None:
    messages = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hel"}]
    prompt = render("", messages, add_generation_prompt=False, continue_final_message="auto")  # no template: ChatML
    assert prompt == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHel"
    with pytest.raises(ChatTemplateError, match="Cannot set both add_generation_prompt and continue_final_message"):
        render("", messages, continue_final_message="auto")


@pytest.mark.parametrize(("messages", "message"), [
    ([{"role": "user", "content": 3}], "llama-server: Failed to parse messages: Invalid 'content' type"),
    ([{"role": "user"}], "Expected 'content' or 'tool_calls'"),
    ([{"content": "x"}], "Missing 'role' in message"),
])  # fmt: skip
def test_message_refusals(messages: list[dict], message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ChatTemplateError) as info:
        render("{{ messages }}", messages)
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(("tools", "message"), [
    ([{"type": "function"}], 'Failed to parse tools: Missing tool function: {"type":"function"}; tools = ['),
    ([{"name": "f"}], "Missing tool type"),
    ([{"type": "code_interpreter"}], "Unsupported tool type"),
])  # fmt: skip
def test_tool_refusals_quote_the_tools(tools: list[dict], message: str) -> None:  # type: ignore[type-arg]
    """llama.cpp's message quotes the tools as JSON: braces of their own (once taken for format fields)."""
    with pytest.raises(ChatTemplateError) as info:
        render_llama_server("{{ tools }}", USER, tools=tools)
    assert message in str(info.value) and "\n" not in str(info.value) and "KeyError" not in str(info.value)


# --- real files ----------------------------------------------------------------------------------


def test_phi3_folds_the_system_message_and_keeps_one_bos() -> None:
    path = ASSETS / "ggml-vocab-phi-3.gguf"
    tok = load_tokenizer(path)
    template = templates_of(read_gguf(path).metadata)["default"]
    p = chat_prompt(tok, template, SYSTEM_USER, runtime="llama-server")
    assert p.text == "<|user|>\nYou are terse.\nHi there<|end|>\n<|assistant|>\n"
    assert p.ids[:2] == [tok.vocab.bos_id, tok.vocab.token_to_id["<|user|>"]]
    assert p.dropped_bos and p.rendered == p.text  # the template wrote the BOS the vocabulary adds: dropped
    system, user = p.messages
    assert system.token_count == 0 and system.folded and user.token_count > 0 and not user.folded
    left_out = chat_prompt(tok, template, SYSTEM_USER)  # transformers: phi-3's template drops the system message
    assert left_out.messages[0].token_count == 0 and not left_out.messages[0].folded
    assert p.runtime == "llama-server" and p.format == "peg-native"
    assert chat_prompt(tok, template, SYSTEM_USER).text == "<|user|>\nHi there<|end|>\n<|assistant|>\n"  # transformers


def test_rwkv_thinks_by_default() -> None:
    path = ASSETS / "rwkv-world-vocab.gguf"
    template = templates_of(read_gguf(path).metadata)["default"]
    assert render(template, SYSTEM_USER).endswith("Assistant: <think>")


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
def test_command_r_renders_tools_with_its_tool_use_template() -> None:
    templates = templates_of(read_gguf(SHARED / "vocabs" / "ggml-vocab-command-r.gguf").metadata)
    tools = [{"type": "function", "function": {"name": "zap", "description": "Zap it", "parameters": {}}}]
    r = render_llama_server(templates["default"], USER, tool_use_template=templates["tool_use"], tools=tools)
    # the template wants Cohere's tool form (tool.name): an OpenAI tool renders as a nameless def, as in llama.cpp
    assert r.template == "tool_use" and "## Available Tools" in r.prompt and "def () -> List[Dict]:" in r.prompt
    assert (
        render_llama_server(templates["default"], USER, tool_use_template=templates["tool_use"]).template == "default"
    )


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
def test_gemma4_system_turn_says_think() -> None:
    template = templates_of(read_gguf(SHARED / "vocabs" / "ggml-vocab-gemma-4.gguf").metadata)["default"]
    assert render(template, SYSTEM_USER).startswith("<|turn>system\n<|think|>You are terse.<turn|>")
    assert render(template, SYSTEM_USER, enable_thinking=False).startswith("<|turn>system\nYou are terse.<turn|>")
