"""render_chat's Jinja set-up (transformers' apply_chat_template) and its error reports."""

from __future__ import annotations

import datetime

import pytest

from tui_tok.explore.chat.render import ChatTemplateError, error_context, normalize_messages, render_chat, templates_of

USER = [{"role": "user", "content": "hi"}]


def test_tojson_neither_escapes_html_nor_non_ascii() -> None:
    out = render_chat("{{ messages[0] | tojson }}", [{"role": "user", "content": "<b>&é日'"}])
    assert out == '{"role": "user", "content": "<b>&é日\'"}'


def test_tojson_takes_transformers_options() -> None:
    out = render_chat("{{ {'b': 1, 'a': [1]} | tojson(indent=2, sort_keys=true) }}", [])
    assert out == '{\n  "a": [\n    1\n  ],\n  "b": 1\n}'
    assert render_chat("{{ [1, 2] | tojson(separators=(',', ':')) }}", []) == "[1,2]"


def test_trim_and_lstrip_blocks() -> None:
    template = "A\n    {% if true %}\nB\n    {% endif %}\nC"
    assert render_chat(template, []) == "A\nB\nC"


def test_loop_controls_and_generation_tag() -> None:
    template = ("{% for m in messages %}{% if loop.index0 == 1 %}{% continue %}{% endif %}"
                "{% if loop.index0 == 3 %}{% break %}{% endif %}{% generation %}[{{ m.content }}]{% endgeneration %}"
                "{% endfor %}")  # fmt: skip
    msgs = [{"role": "user", "content": str(i)} for i in range(5)]
    assert render_chat(template, msgs) == "[0][2]"


def test_variables_and_extra() -> None:
    template = (
        "{{ bos_token }}|{{ eos_token }}|{{ add_generation_prompt }}|{{ tools }}|{{ documents }}|{{ enable_thinking }}"
    )
    out = render_chat(template, USER, bos_token="<s>", eos_token="</s>", extra={"enable_thinking": False,
                                                                                  "bos_token": "ignored"})  # fmt: skip
    assert out == "<s>|</s>|True|None|None|False"


def test_strftime_now_dict_and_namespace() -> None:
    year = datetime.datetime.now().year
    assert render_chat("{{ strftime_now('%Y') }}", []) in (str(year), str(year + 1))
    assert (
        render_chat("{{ dict(a=1) | tojson }}{% set ns = namespace(n=1) %}{% set ns.n = 2 %}{{ ns.n }}", [])
        == '{"a": 1}2'
    )
    with pytest.raises(ChatTemplateError, match="underscore"):
        render_chat("{% set ns = namespace(_x=1) %}", [])


def test_sandbox_refuses_mutation_and_dunders() -> None:
    with pytest.raises(ChatTemplateError):
        render_chat("{{ messages.append(1) }}", USER)
    assert render_chat("{{ messages.__class__ }}", USER) == ""  # undefined, as jinja's sandbox makes it


def test_messages_are_normalized_as_transformers_does() -> None:
    out = normalize_messages([{"role": "assistant", "content": None, "thinking": "t"}])
    assert out == [{"thinking": "t", "role": "assistant", "reasoning_content": "t"}]
    assert render_chat("{{ messages[0].content is defined }}", [{"role": "user", "content": None}]) == "False"


def test_syntax_error_has_line_column_and_context() -> None:
    template = "{% for m in messages %}\n{{ m.content }\n{% endfor %}"
    with pytest.raises(ChatTemplateError) as info:
        render_chat(template, USER)
    err = info.value
    assert (err.line, err.column) == (2, 14)
    assert str(err) == "template line 2, column 14: unexpected '}'"
    lines = err.context.split("\n")
    assert lines[:2] == [" 1 | {% for m in messages %}", ">2 | {{ m.content }"]
    assert lines[2].index("^") == lines[1].index("}", 14)  # under the stray brace


def test_runtime_errors_name_the_line() -> None:
    template = "line one\n{{ raise_exception('Roles must alternate') }}\nline three"
    with pytest.raises(ChatTemplateError) as info:
        render_chat(template, USER)
    assert info.value.line == 2 and info.value.message == "Roles must alternate"
    with pytest.raises(ChatTemplateError) as info:
        render_chat("a\n\n{{ messages[0].nope.deeper }}", USER)
    assert (info.value.line, info.value.column) == (3, 16) and "'nope'" in str(info.value)
    with pytest.raises(ChatTemplateError, match=r"^template line 1: ZeroDivisionError"):
        render_chat("{{ 1 // 0 }}", [])


def test_context_of_a_long_line_is_a_window_around_the_column() -> None:
    line = "x" * 500 + "HERE" + "y" * 500
    text = error_context([line], 1, 501)
    shown, caret = text.split("\n")
    assert "HERE" in shown and len(shown) < 120 and shown[caret.index("^") : caret.index("^") + 4] == "HERE"


def test_templates_of() -> None:
    meta = {"tokenizer.chat_template": "D", "tokenizer.chat_templates": ["rag", "tool_use", "missing", 3],
            "tokenizer.chat_template.rag": "R", "tokenizer.chat_template.tool_use": "T"}  # fmt: skip
    assert templates_of(meta) == {"default": "D", "rag": "R", "tool_use": "T"}
    assert templates_of({}) == {}
