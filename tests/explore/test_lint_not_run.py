"""Lint never says "clean" when a check did not run: a crashed check and template checks without
tokens are ``check-not-run`` findings (and exit code 1); a template past a bound is tried once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lint_support import DROP, broken, codes, lint_file, only
from tui_tok.cli import main
from tui_tok.explore.chat.render import ChatTemplateError
from tui_tok.explore.lint import checks_template, run
from tui_tok.explore.lint.context import LintContext
from tui_tok.explore.lint.finding import Finding

PHI3 = "ggml-vocab-phi-3.gguf"


def _crashing_check(ctx: LintContext) -> Iterator[Finding]:
    raise RecursionError("maximum recursion depth exceeded")
    yield  # a generator, as the checks are


def test_a_crashed_check_is_a_finding_and_fails_the_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    path = broken(tmp_path, PHI3, tokenizer__chat_template="{{ messages[0].content }}")
    monkeypatch.setattr(run, "CHECKS", (*run.CHECKS, _crashing_check))
    report = lint_file(path)
    f = only(report, "check-not-run")
    assert "_crashing_check" in f.message and "RecursionError" in f.message and "\n" not in f.message
    assert report.summary() != "0 errors, 0 warnings, 0 info"
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert "warning check-not-run:" in out


def test_template_checks_without_tokens_say_they_did_not_run(tmp_path: Path) -> None:
    path = broken(tmp_path, PHI3, tokens=DROP, scores=DROP, token_type=DROP,
                  tokenizer__chat_template="{{ messages[0].content }}")  # fmt: skip
    report = lint_file(path)
    assert any(f.code == "check-not-run" and "chat template" in f.message for f in report.findings), report.findings


def test_a_template_past_a_bound_is_tried_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each try of a template that exceeded the deadline costs the deadline again: one is enough."""
    calls = []

    def render(*args: Any, **kwargs: Any) -> str:
        calls.append(kwargs.get("tools"))
        raise ChatTemplateError("render exceeded 2 s", line=1, column=None, context="", exceeded=True)

    monkeypatch.setattr(checks_template, "render_chat", render)
    path = broken(tmp_path, PHI3, tokenizer__chat_template="x", tokenizer__chat_templates=["tool_use"],
                  tokenizer__chat_template__tool_use="y")  # fmt: skip
    report = lint_file(path)
    assert len(calls) == 2  # the default template once, tool_use once (not once per tool form and conversation)
    assert sum(f.code == "template-error" and "exceeded 2 s" in f.message for f in report.findings) == 2
    assert "check-not-run" not in codes(report)


def test_templates_past_the_total_time_are_not_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A file may carry many templates that each take nearly the deadline: the checks stop at a total."""
    monkeypatch.setattr(checks_template, "TOTAL_SECONDS", 0.0)
    path = broken(tmp_path, PHI3, tokenizer__chat_template="{{ messages[0].content }}",
                  tokenizer__chat_templates=["tool_use"], tokenizer__chat_template__tool_use="{{ tools }}")  # fmt: skip
    f = only(lint_file(path), "check-not-run")
    assert f.key == "tokenizer.chat_template.tool_use" and "not checked" in f.message
