"""``tui-tok diff``: exit codes as diff(1), the JSON shapes, --jsonl, --vocab, --hf and errors."""

from __future__ import annotations

import io
import json

import pytest
from cli_support import run_cli

from support import ASSETS, HAVE_SHARED, SHARED, SHARED_MISSING

QWEN = str(ASSETS / "qwen3-vocab.gguf")
GPT2 = str(ASSETS / "ggml-vocab-gpt-2.gguf")
PHI3 = str(ASSETS / "ggml-vocab-phi-3.gguf")


def test_same_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "diff", QWEN, QWEN, "Hello world")
    assert code == 0 and "same tokenization" in out and "(2 tokens)" in out


def test_different_exits_1_with_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "diff", QWEN, PHI3, "Hello world", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["same"] is False
    assert doc["b"]["ids"][0] == 1  # phi-3's BOS
    assert doc["first_difference"]["byte"] == 0 and doc["first_difference"]["index"] == 0


def test_text_report_marks_the_difference(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "diff", QWEN, PHI3, "Hello world")
    assert code == 1 and "first difference at byte 0 (token 0)" in out and "^" in out


def test_file_and_no_add_special(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "t.txt"
    f.write_bytes("naïve".encode())
    code, out, _ = run_cli(capsys, "diff", QWEN, GPT2, "--file", str(f), "--no-add-special", "--json")
    doc = json.loads(out)
    assert code == (0 if doc["same"] else 1)
    from tui_tok.loader import load_tokenizer

    assert doc["a"]["ids"] == load_tokenizer(QWEN).encode("naïve", add_special=False)


def test_jsonl(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b'{"text": "Hello"}\n"plain"\n'))
    monkeypatch.setattr("sys.stdin", stdin)
    code, out, _ = run_cli(capsys, "diff", QWEN, PHI3, "--jsonl")
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 1 and len(lines) == 2 and all(set(x) >= {"same", "a", "b", "first_difference"} for x in lines)


def test_vocab(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "diff", QWEN, GPT2, "--vocab", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["only_a"] > 0 and doc["moved"] > 0
    assert "tokenizer.ggml.tokens" in doc["metadata"]["changed"]
    code, out, _ = run_cli(capsys, "diff", QWEN, QWEN, "--vocab")
    assert code == 0 and "tokens only in A: 0" in out


@pytest.mark.parametrize(
    "argv", [["diff", QWEN, "missing.gguf", "x"], ["diff", QWEN, GPT2, "--fuzz", "3"], ["diff", QWEN]]
)
def test_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and err.startswith("tui-tok: error:")


def test_hf_missing_package(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "tokenizers", None)
    code, _, err = run_cli(capsys, "diff", QWEN, "--hf", "somewhere", "x")
    assert code == 2 and "pip install 'tui-tok[hf]'" in err and "pip install -e '.[hf]'" in err and err.count("\n") == 1


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
def test_hf_text_and_fuzz(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tokenizers", reason="tokenizers not installed (pip install 'tui-tok[hf]')")
    model, hf = str(SHARED / "data/qwen3-vocab.gguf"), str(SHARED / "data/hf/qwen3")
    code, out, _ = run_cli(capsys, "diff", model, "--hf", hf, "Hello world")
    assert code == 0 and "same tokenization" in out
    code, out, _ = run_cli(capsys, "diff", model, "--hf", hf, "cafe\u0301", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["known"]["name"] == "normalizer"
    code, out, _ = run_cli(capsys, "diff", model, "--hf", hf, "--fuzz", "60", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["tested"] == 60 and all(m["known"] for m in doc["mismatches"])
