"""Lint's ``runtimes-differ``: a template that llama-server and transformers render to other ids for a plain
conversation is reported (an info), with where they part; one that both render alike is not."""

from __future__ import annotations

from lint_support import broken, codes, lint_file, only
from support import ASSETS
from tui_tok.explore.lint import Severity

QWEN3 = "qwen3-vocab.gguf"
CHATML = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")  # fmt: skip


def test_phi3_system_message_folded_by_llama_server_dropped_by_transformers() -> None:
    found = only(lint_file(ASSETS / "ggml-vocab-phi-3.gguf"), "runtimes-differ")
    assert found.severity is Severity.INFO and found.key == "tokenizer.chat_template"
    assert "from char 9 (token 2): 'You are a…' vs 'Hello the…'" in found.message and "\n" not in found.message


def test_a_template_both_runtimes_render_alike_is_not_reported(tmp_path) -> None:
    assert "runtimes-differ" not in codes(lint_file(broken(tmp_path, QWEN3, tokenizer__chat_template=CHATML)))


def test_thinking_on_by_default_in_llama_server_is_a_difference(tmp_path) -> None:
    thinking = CHATML.replace("<|im_start|>assistant\n{% endif %}",
                              "<|im_start|>assistant\n{% if enable_thinking %}<think>{% endif %}{% endif %}")  # fmt: skip
    found = only(lint_file(broken(tmp_path, QWEN3, tokenizer__chat_template=thinking)), "runtimes-differ")
    assert "'<think>'" in found.message and "transformers" in found.message


def test_a_template_only_transformers_refuses_says_so(tmp_path) -> None:
    # llama.cpp's dialect has list.append; transformers' immutable sandbox refuses it
    appending = "{% set seen = [] %}{% for m in messages %}{% set _ = seen.append(m.role) %}{% endfor %}" + CHATML
    found = only(lint_file(broken(tmp_path, QWEN3, tokenizer__chat_template=appending)), "runtimes-differ")
    assert "transformers refuses" in found.message
