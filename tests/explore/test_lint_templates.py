"""Lint of chat templates: render errors, doubled BOS, markers that are not special, turn ends that
do not stop generation — each on a bundled asset given a broken template."""

from __future__ import annotations

import numpy as np

from lint_support import asset_metadata, broken, codes, lint_file, only
from tui_tok.explore.lint import Severity

QWEN3 = "qwen3-vocab.gguf"
GPT2 = "ggml-vocab-gpt-2.gguf"
PHI3 = "ggml-vocab-phi-3.gguf"
KEY = "tokenizer.chat_template"

CHATML = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")  # fmt: skip


def _template(tmp_path, asset: str, template: str, **changes):  # type: ignore[no-untyped-def]
    return lint_file(broken(tmp_path, asset, tokenizer__chat_template=template, **changes))


def test_a_working_chatml_template_is_clean(tmp_path) -> None:
    report = _template(tmp_path, QWEN3, CHATML)
    assert not {
        "template-error",
        "double-bos",
        "bos-text-dropped",
        "template-marker-not-special",
        "turn-end-not-eog",
    } & codes(report)


def test_template_error_names_the_line(tmp_path) -> None:
    template = "{% for m in messages %}{{ m.content }}\n{% endfor %}\n{{ raise_exception('no chat here') }}"
    f = only(_template(tmp_path, QWEN3, template), "template-error")
    assert f.severity is Severity.ERROR and f.key == KEY and f.line == 3
    assert "no chat here" in f.message and "raise_exception" in f.context


def test_template_refusing_a_system_message_is_not_an_error(tmp_path) -> None:
    template = "{% if messages[0].role == 'system' %}{{ raise_exception('no system role') }}{% endif %}" + CHATML
    assert "template-error" not in codes(_template(tmp_path, QWEN3, template))


def test_named_tool_template_gets_tools(tmp_path) -> None:
    template = "{% for t in tools %}{{ t.function.name }}{% endfor %}" + CHATML
    report = lint_file(broken(tmp_path, QWEN3, tokenizer__chat_template=CHATML, tokenizer__chat_templates=["tool_use"],
                              tokenizer__chat_template__tool_use=template))  # fmt: skip
    assert "template-error" not in codes(report)
    broken_tool = "{% for t in tools %}{{ t.nothing.name }}{% endfor %}" + CHATML
    report = lint_file(broken(tmp_path, QWEN3, tokenizer__chat_template=CHATML, tokenizer__chat_templates=["tool_use"],
                              tokenizer__chat_template__tool_use=broken_tool))  # fmt: skip
    assert only(report, "template-error").key == KEY + ".tool_use"


def test_bos_text_the_vocab_adds(tmp_path) -> None:
    """llama-server drops one leading BOS text when the vocab adds BOS (common/chat.cpp): a template
    writing it once gives one BOS (info), twice or after whitespace gives two (warning)."""
    template = "{{ bos_token }}" + CHATML
    f = only(_template(tmp_path, GPT2, template, add_bos_token=True), "bos-text-dropped")
    assert f.severity is Severity.INFO and "<|endoftext|>" in f.message and "one BOS token" in f.message
    assert "double-bos" not in codes(_template(tmp_path, GPT2, template, add_bos_token=True))
    assert not {"double-bos", "bos-text-dropped"} & codes(_template(tmp_path, GPT2, template, add_bos_token=False))
    for twice in ("{{ bos_token }}{{ bos_token }}" + CHATML, "\n{{ bos_token }}" + CHATML):
        f = only(_template(tmp_path, GPT2, twice, add_bos_token=True), "double-bos")
        assert f.severity is Severity.WARNING and "two BOS tokens" in f.message


def test_lint_and_chat_count_the_same_bos(tmp_path) -> None:
    """What lint says about BOS is what the Chat view's prompt (llama-server's) holds."""
    from lint_support import DROP
    from support import ASSETS
    from tui_tok.explore.chat.prompt import chat_prompt
    from tui_tok.explore.chat.render import templates_of
    from tui_tok.gguf import read_gguf
    from tui_tok.loader import load_tokenizer

    messages = [{"role": "user", "content": "Hello there"}]
    phi3 = ASSETS / PHI3
    template = "{{ bos_token }}" + CHATML
    cases = [(phi3, templates_of(read_gguf(phi3).metadata)["default"])]
    for n, twice in enumerate((template, "{{ bos_token }}" + template)):
        (tmp_path / str(n)).mkdir()
        path = broken(tmp_path / str(n), GPT2, tokenizer__chat_template=twice, add_bos_token=True,
                      tokenizer__chat_templates=DROP)  # fmt: skip
        cases.append((path, twice))
    for path, text in cases:
        tok = load_tokenizer(path)
        ids = chat_prompt(tok, text, messages).ids
        bos = next(k for k, t in enumerate(ids) if t != tok.vocab.bos_id)
        report = lint_file(path)
        said = [f for f in report.findings if f.code in ("double-bos", "bos-text-dropped")]
        assert len(said) == 1, report.findings
        assert ("two BOS tokens" if bos == 2 else "one BOS token") in said[0].message, (path, ids[:3], said)


def test_marker_that_is_not_in_the_vocab(tmp_path) -> None:
    template = CHATML.replace("<|im_end|>", "<|im_sep|><|im_end|>")
    f = only(_template(tmp_path, QWEN3, template), "template-marker-not-special")
    assert f.severity is Severity.WARNING and "'<|im_sep|>'" in f.message and f.line == 2  # after {{ m.role }}\n


def test_marker_whose_token_is_normal(tmp_path) -> None:
    meta = asset_metadata(QWEN3)
    types = np.array(meta["tokenizer.ggml.token_type"], dtype=np.int32)
    start = meta["tokenizer.ggml.tokens"].index("<|im_start|>")
    types[start] = 1
    f = only(_template(tmp_path, QWEN3, CHATML, token_type=types), "template-marker-not-special")
    assert "'<|im_start|>'" in f.message


def test_turn_end_not_eog(tmp_path) -> None:
    template = CHATML.replace("<|im_end|>", "<|object_ref_start|>")
    f = only(_template(tmp_path, QWEN3, template), "turn-end-not-eog")
    assert f.severity is Severity.ERROR and "<|object_ref_start|>" in f.message and f.token_id == 151646


def test_template_checks_without_the_tokenizer(tmp_path) -> None:
    """pre-unknown: the tokenizer cannot be built; the template checks look texts up instead."""
    template = "{{ bos_token }}" + CHATML.replace("<|im_end|>", "<|object_ref_start|><|im_sep|>")
    report = _template(tmp_path, QWEN3, template, pre="qwen-nine", bos_token_id=151643, add_bos_token=True)
    assert report.tokenizer_error is not None
    assert {"pre-unknown", "turn-end-not-eog", "template-marker-not-special", "bos-text-dropped"} <= codes(report)


def test_phi3_bundled_template_writes_the_bos_text() -> None:
    from support import ASSETS

    report = lint_file(ASSETS / PHI3)
    # and llama-server folds its system message where transformers drops it (tests/explore/test_lint_runtimes.py)
    assert [f.code for f in report.findings] == ["bos-text-dropped", "runtimes-differ"]
