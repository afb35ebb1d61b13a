"""``encode --jsonl``: the per-line ``add_special``/``parse_special`` fields are JSON booleans.

``bool("no")`` is True, so ``"add_special": "no"`` used to add BOS; any value but true/false is
now a one-line error naming the stdin line and the field (no traceback).
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from cli_support import run_cli

from tui_tok.loader import load_tokenizer

PHI3 = Path(__file__).resolve().parents[2] / "assets" / "ggml-vocab-phi-3.gguf"


def _stdin(monkeypatch: pytest.MonkeyPatch, *lines: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("\n".join(lines).encode())))


@pytest.mark.parametrize("field", ["add_special", "parse_special"])
@pytest.mark.parametrize("value", ['"no"', '"false"', "0", "1", "null", "[]", '"true"'])
def test_non_boolean_flag_is_one_line_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, field: str, value: str
) -> None:
    _stdin(monkeypatch, '"fine"', f'{{"text": "Hello", "{field}": {value}}}')
    code, out, err = run_cli(capsys, "encode", str(PHI3), "--jsonl")
    assert code != 0  # as for a line that is not JSON
    assert [json.loads(x) for x in out.splitlines()] == [{"ids": load_tokenizer(PHI3).encode("fine")}]  # line 1
    assert len(err.strip().splitlines()) == 1 and "line 2" in err and field in err
    assert "Traceback" not in err


def test_boolean_flags_are_obeyed(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, '{"text": "Hello", "add_special": false}', '{"text": "Hello", "add_special": true}')
    code, out, _ = run_cli(capsys, "encode", str(PHI3), "--jsonl", "--no-add-special")
    assert code == 0
    tok = load_tokenizer(PHI3)
    assert tok.encode("Hello") != tok.encode("Hello", add_special=False)
    expected = [{"ids": tok.encode("Hello", add_special=False)}, {"ids": tok.encode("Hello")}]
    assert [json.loads(x) for x in out.splitlines()] == expected
