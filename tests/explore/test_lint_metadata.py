"""Lint of the declared facts: model, pre, special ids, vocabulary size (one broken asset per code)."""

from __future__ import annotations

import numpy as np
import pytest

from lint_support import DROP, asset_metadata, broken, codes, lint_file, only
from support import ASSETS
from tui_tok.explore.lint import Severity
from tui_tok.explore.lint.families import guess_pre
from tui_tok.gguf import GGUFValue, GGUFValueType

GPT2 = "ggml-vocab-gpt-2.gguf"
PHI3 = "ggml-vocab-phi-3.gguf"
QWEN3 = "qwen3-vocab.gguf"


@pytest.mark.parametrize("asset", sorted(p.name for p in ASSETS.glob("*.gguf")))
def test_clean_assets_have_no_error(asset: str) -> None:
    report = lint_file(ASSETS / asset)
    assert not report.has_error, report.findings
    assert report.internal_errors == ()


@pytest.mark.parametrize(("asset", "family"), [(QWEN3, "qwen2"), (GPT2, "gpt-2")])
def test_pre_missing_names_the_family(tmp_path, asset: str, family: str) -> None:
    f = only(lint_file(broken(tmp_path, asset, pre=DROP)), "pre-missing")
    assert f.severity is Severity.WARNING
    assert f"'{family}'" in f.message and family in f.hint


def test_pre_missing_without_a_known_family_guesses_nothing(tmp_path) -> None:
    meta = asset_metadata(GPT2)
    tokens = list(meta["tokenizer.ggml.tokens"])
    tokens[50256] = "<|end|>"  # no longer GPT-2's <|endoftext|>
    f = only(lint_file(broken(tmp_path, GPT2, pre=DROP, tokens=tokens)), "pre-missing")
    assert "look like" not in f.message
    assert guess_pre(set(tokens), len(tokens)) is None


def test_pre_unknown_is_an_error_and_lint_still_runs_without_the_tokenizer(tmp_path) -> None:
    report = lint_file(broken(tmp_path, QWEN3, pre="qwen-nine"))
    f = only(report, "pre-unknown")
    assert f.severity is Severity.ERROR and "'qwen-nine'" in f.message and "'qwen2'" in f.message
    assert f.key == "tokenizer.ggml.pre"
    assert report.has_error


def test_model_unknown(tmp_path) -> None:
    f = only(lint_file(broken(tmp_path, GPT2, model="sentencepiece")), "model-unknown")
    assert f.severity is Severity.ERROR and "'sentencepiece'" in f.message


def test_special_id_out_of_range(tmp_path) -> None:
    f = only(lint_file(broken(tmp_path, GPT2, eos_token_id=60000)), "special-id-out-of-range")
    assert f.severity is Severity.ERROR
    assert f.key == "tokenizer.ggml.eos_token_id" and "60000" in f.message and "50257" in f.message


def test_special_id_out_of_range_is_a_warning_for_padding(tmp_path) -> None:
    f = only(lint_file(broken(tmp_path, GPT2, padding_token_id=50257)), "special-id-out-of-range")
    assert f.severity is Severity.WARNING and "(PAD)" in f.message


def test_special_id_not_special(tmp_path) -> None:
    tokens = asset_metadata(PHI3)["tokenizer.ggml.tokens"]
    the = tokens.index("▁the")
    f = only(lint_file(broken(tmp_path, PHI3, bos_token_id=the)), "special-id-not-special")
    assert f.severity is Severity.WARNING and f.token_id == the and "▁the" in f.message


def test_special_id_not_special_is_info_for_padding(tmp_path) -> None:
    f = only(lint_file(broken(tmp_path, PHI3, padding_token_id=500)), "special-id-not-special")
    assert f.severity is Severity.INFO


def test_vocab_size_mismatch(tmp_path) -> None:
    ok = lint_file(broken(tmp_path, GPT2, tensors=[("token_embd.weight", (8, 50257), 0)]))
    assert "vocab-size-mismatch" not in codes(ok)
    report = lint_file(broken(tmp_path, GPT2, tensors=[("token_embd.weight", (8, 50257), 0),
                                                        ("output.weight", (8, 50304), 0)]))  # fmt: skip
    f = only(report, "vocab-size-mismatch")
    assert f.severity is Severity.ERROR and "output.weight" in f.message and "50304" in f.message


def test_token_type_array_of_the_wrong_type(tmp_path) -> None:
    types = asset_metadata(GPT2)["tokenizer.ggml.token_type"]
    wrong = GGUFValue(GGUFValueType.ARRAY, [float(t) for t in types], GGUFValueType.FLOAT32)
    f = only(lint_file(broken(tmp_path, GPT2, token_type=wrong)), "token-type-invalid")
    assert f.severity is Severity.ERROR


def test_token_type_out_of_enum(tmp_path) -> None:
    types = np.array(asset_metadata(GPT2)["tokenizer.ggml.token_type"], dtype=np.int32)
    types[[7, 9]] = [9, -2]
    f = only(lint_file(broken(tmp_path, GPT2, token_type=types)), "token-type-invalid")
    assert f.severity is Severity.WARNING and f.token_id == 7 and "2 value(s)" in f.message


@pytest.mark.parametrize("module", ["tui_tok.explore.lint.finding", "tui_tok.explore.lint.families"])
def test_docstring_examples(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
