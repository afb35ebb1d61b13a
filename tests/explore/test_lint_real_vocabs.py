"""Every real vocabulary in ../shared loads in llama.cpp: lint must give no error finding, and the
warnings each gets are recorded here (phi-3, command-r and gemma-4 write BOS in their templates
while the vocabulary adds BOS: llama-server drops that text, an info, not a warning)."""

from __future__ import annotations

import pytest

from lint_support import lint_file
from support import HAVE_SHARED, SHARED_MISSING, vocab_files
from tui_tok.explore.lint import Severity

WARNINGS: dict[str, set[str]] = {
    "aquila": {"pre-missing"},  # llama.cpp's own test vocab, converted before pre existed
    "gpt-neox": {"pre-missing"},
    "gemma3-270m-vocab": {"user-defined-whitespace"},
}
"""Vocab name -> warning codes; every other vocabulary gets none."""

REAL = [v for v in vocab_files() if not v.bundled]


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
@pytest.mark.parametrize("vocab", REAL, ids=[v.name for v in REAL])
def test_real_vocab_has_no_error_and_the_recorded_warnings(vocab) -> None:  # type: ignore[no-untyped-def]
    report = lint_file(vocab.path)
    assert report.internal_errors == ()
    assert report.tokenizer_error is None
    errors = [f for f in report.findings if f.severity is Severity.ERROR]
    assert errors == []
    assert {f.code for f in report.findings if f.severity is Severity.WARNING} == WARNINGS.get(vocab.name, set())


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
def test_gpt_neox_pre_guess() -> None:
    from support import vocab_file

    report = lint_file(vocab_file("gpt-neox").path)
    assert "'mpt'" in report.findings[0].message
