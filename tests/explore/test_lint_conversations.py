"""Lint renders more than the basic conversation: a template that fails only when the conversation
ends with an assistant turn, has tools, turns thinking off, or has a system message and several
turns is a ``template-error`` naming that conversation."""

from __future__ import annotations

import pytest

from lint_support import broken, lint_file
from tui_tok.explore.lint import Severity
from tui_tok.explore.lint.conversations import CONVERSATIONS, failures

QWEN3 = "qwen3-vocab.gguf"
KEY = "tokenizer.chat_template"
CHATML = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")  # fmt: skip

BROKEN = {
    "a conversation ending with an assistant turn":
        "{% if not add_generation_prompt %}{{ messages[-1].reasoning_content.strip() }}{% endif %}\n" + CHATML,
    "a request with tools": "{% if tools %}{{ tools[0].function.parameters.properties.city.enum[0] }}{% endif %}\n" + CHATML,
    "a request with enable_thinking false":
        "{% if enable_thinking is defined and not enable_thinking %}{{ messages[-1].thinking.strip() }}{% endif %}\n" + CHATML,
    "a system message and several turns":
        "{% if messages|length > 4 %}{{ messages[0].content + messages[3] }}{% endif %}\n" + CHATML,
}  # fmt: skip


def test_every_conversation_is_tried() -> None:
    assert {c.name for c in CONVERSATIONS} == set(BROKEN)
    assert list(failures(CHATML, bos_token="", eos_token="")) == []


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_template_failing_on_one_conversation(tmp_path, name: str) -> None:  # type: ignore[no-untyped-def]
    report = lint_file(broken(tmp_path, QWEN3, tokenizer__chat_template=BROKEN[name]))
    found = [f for f in report.findings if f.code == "template-error"]
    assert len(found) == 1, report.findings
    f = found[0]
    assert f.severity is Severity.ERROR and f.key == KEY and f.line == 1 and f.context
    assert f"fails on {name}: template line 1" in f.message, f.message
    assert all(f"on {other}" not in f.message for other in BROKEN if other != name), f.message


def test_one_error_on_several_conversations_is_one_finding(tmp_path) -> None:  # type: ignore[no-untyped-def]
    template = ("{% if messages[-1].role == 'assistant' or tools or messages|length > 4 %}"
                "{{ messages[0].nothing.strip() }}{% endif %}\n" + CHATML)  # fmt: skip
    report = lint_file(broken(tmp_path, QWEN3, tokenizer__chat_template=template))
    [f] = [f for f in report.findings if f.code == "template-error"]
    assert ("fails on a conversation ending with an assistant turn, on a request with tools and on a system message "
            "and several turns: template line 1") in f.message, f.message  # fmt: skip


def test_a_refused_system_message_is_not_an_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    template = "{% if messages[0].role == 'system' %}{{ raise_exception('no system role') }}{% endif %}" + CHATML
    report = lint_file(broken(tmp_path, QWEN3, tokenizer__chat_template=template))
    assert "template-error" not in {f.code for f in report.findings}


def test_one_full_stop_and_no_internal_references(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 27: jinja2's "... is unsafe." ended a message in "unsafe.."; a hint cited "seed 004"."""
    from tui_tok.explore.lint.finding import CODES

    for template in (
        "{{ messages.pop() }}" + CHATML,
        "{% if not add_generation_prompt %}{{ messages.pop() }}{% endif %}" + CHATML,
    ):
        report = lint_file(broken(tmp_path, QWEN3, tokenizer__chat_template=template))
        [f] = [f for f in report.findings if f.code == "template-error"]
        assert f.message.endswith("is unsafe.") and ".." not in f.message, f.message
    for info in CODES.values():
        assert "seed" not in info.hint.lower() and "seed" not in info.title.lower(), info
