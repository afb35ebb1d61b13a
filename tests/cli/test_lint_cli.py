"""``tui-tok lint``: findings as text or JSON, exit 1 with an error finding, 0 without, 2 for a file
that is not GGUF — and it works when the tokenizer cannot be built."""

from __future__ import annotations

import json

from cli_support import run_cli

from lint_support import DROP, broken
from support import ASSETS

PHI3 = str(ASSETS / "ggml-vocab-phi-3.gguf")


def test_clean_file_exits_0_with_its_info(capsys) -> None:
    """phi-3's template writes '<s>' and the vocab adds BOS: llama-server drops the text (one BOS); and it
    folds the system message that transformers drops (the runtimes differ)."""
    code, out, err = run_cli(capsys, "lint", PHI3)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("info    bos-text-dropped: ") and "'<s>'" in lines[0] and "one BOS token" in lines[0]
    assert lines[1].strip().startswith("hint: ") and "#15086" in lines[1]
    assert any(line.startswith("info    runtimes-differ: ") for line in lines)
    assert lines[-1] == f"{PHI3}: 0 errors, 0 warnings, 2 info"


def test_json_findings(capsys) -> None:
    code, out, _ = run_cli(capsys, "lint", "--json", PHI3)
    data = json.loads(out)
    assert code == 0
    assert [f["code"] for f in data["findings"]] == ["bos-text-dropped", "runtimes-differ"]
    assert set(data["findings"][0]) >= {"code", "severity", "message", "hint", "key", "line"}


def test_error_finding_exits_1_even_when_the_tokenizer_cannot_load(capsys, tmp_path) -> None:
    path = broken(tmp_path, "ggml-vocab-gpt-2.gguf", pre="gpt-99", eos_token_id=99999)
    code, out, _ = run_cli(capsys, "lint", "--json", str(path))
    data = json.loads(out)
    assert code == 1
    assert {"pre-unknown", "special-id-out-of-range"} <= {f["code"] for f in data["findings"]}
    assert all(f["severity"] == "error" for f in data["findings"][:2])


def test_warning_only_exits_0(capsys, tmp_path) -> None:
    path = broken(tmp_path, "qwen3-vocab.gguf", pre=DROP)
    code, out, _ = run_cli(capsys, "lint", str(path))
    assert code == 0 and out.startswith("warning pre-missing: ")


def test_not_gguf_exits_2_with_one_line(capsys, tmp_path) -> None:
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"GGUX" + bytes(20))
    code, out, err = run_cli(capsys, "lint", str(bad))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and str(bad) in err
