"""Lint of the token list: duplicates, empty texts, model fit, whitespace USER_DEFINED, unreachable tokens."""

from __future__ import annotations

import numpy as np

from lint_support import DROP, asset_metadata, broken, codes, lint_file, only
from tui_tok.explore.lint import Severity

GPT2 = "ggml-vocab-gpt-2.gguf"
PHI3 = "ggml-vocab-phi-3.gguf"


def _tokens(asset: str) -> list[str]:
    return list(asset_metadata(asset)["tokenizer.ggml.tokens"])


def test_duplicate_token(tmp_path) -> None:
    tokens = _tokens(GPT2)
    tokens[300] = tokens[200]
    f = only(lint_file(broken(tmp_path, GPT2, tokens=tokens)), "duplicate-token")
    assert f.severity is Severity.ERROR and f.token_id == 300 and "200 and 300" in f.message


def test_empty_token_is_renamed_not_duplicated(tmp_path) -> None:
    tokens = _tokens(GPT2)
    tokens[300] = tokens[400] = ""
    report = lint_file(broken(tmp_path, GPT2, tokens=tokens))
    f = only(report, "empty-token")
    assert f.severity is Severity.WARNING and f.token_id == 300 and "2 empty" in f.message
    assert "duplicate-token" not in codes(report)  # [EMPTY_300] and [EMPTY_400] differ


def test_byte_level_vocab_declared_llama(tmp_path) -> None:
    report = lint_file(broken(tmp_path, GPT2, model="llama", pre=DROP))
    f = only(report, "model-mismatch")
    assert f.severity is Severity.ERROR and "'Ġ'" in f.message and "unordered_map::at" in f.message


def test_spm_vocab_declared_gpt2(tmp_path) -> None:
    report = lint_file(broken(tmp_path, PHI3, model="gpt2", pre="gpt-2", merges=["▁ t", "▁t h"]))
    found = [f for f in report.findings if f.code == "model-mismatch"]
    assert any("'▁'" in f.message and "<0xNN>" in f.message for f in found), found


def test_bpe_without_merges(tmp_path) -> None:
    f = only(lint_file(broken(tmp_path, GPT2, merges=DROP)), "model-mismatch")
    assert f.severity is Severity.ERROR and "merges" in f.message


def test_bpe_without_newline_token(tmp_path) -> None:
    tokens = _tokens(GPT2)
    tokens[tokens.index("Ċ")] = "Ċx"
    f = only(lint_file(broken(tmp_path, GPT2, tokens=tokens)), "model-mismatch")
    assert f.severity is Severity.WARNING and "newline" in f.message


def test_user_defined_whitespace(tmp_path) -> None:
    tokens = _tokens(PHI3)
    types = np.array(asset_metadata(PHI3)["tokenizer.ggml.token_type"], dtype=np.int32)
    tokens[500], types[500] = "   ", 4
    tokens[501], types[501] = "\n\n", 4  # newlines are not escaped by SPM: not reported
    f = only(lint_file(broken(tmp_path, PHI3, tokens=tokens, token_type=types)), "user-defined-whitespace")
    assert f.severity is Severity.WARNING and f.token_id == 500 and "1 USER_DEFINED" in f.message


def test_unreachable_bpe_token_without_its_merge(tmp_path) -> None:
    merges = list(asset_metadata(GPT2)["tokenizer.ggml.merges"])
    merges.remove("Ġt he")
    assert "Ġ the" not in merges and "Ġth e" not in merges
    the = _tokens(GPT2).index("Ġthe")
    f = only(lint_file(broken(tmp_path, GPT2, merges=merges)), "unreachable-tokens")
    assert f.severity is Severity.INFO and f.token_id == the


def test_unreachable_spm_token(tmp_path) -> None:
    tokens = _tokens(PHI3)
    tokens[600] = "☃☄x"  # no piece of it but 'x' is a token: nothing joins into it
    f = only(lint_file(broken(tmp_path, PHI3, tokens=tokens)), "unreachable-tokens")
    assert f.token_id == 600 and "☃☄x" in f.context


def test_clean_gpt2_has_every_token_reachable() -> None:
    from support import ASSETS

    assert "unreachable-tokens" not in codes(lint_file(ASSETS / GPT2))
