"""``tui-tok encode`` / ``tui-tok decode``: ids as llama-tokenize prints them, JSON lines, errors."""

from __future__ import annotations

import io
import json
import sys

import pytest
from cli_support import run_cli
from support import ASSETS

from tui_tok.cli.encode import unescape
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.core.byte_level import BYTE_TO_CHAR

PHI3 = ASSETS / "ggml-vocab-phi-3.gguf"
QWEN3 = ASSETS / "qwen3-vocab.gguf"


@pytest.mark.parametrize("model", [PHI3, QWEN3], ids=["phi-3", "qwen3"])
def test_encode_prints_the_id_list(capsys: pytest.CaptureFixture[str], model) -> None:
    tok = load_tokenizer(model)
    text = "Hello world<|end|> <|im_end|>"
    code, out, _ = run_cli(capsys, "encode", str(model), text)
    assert code == 0
    assert out == f"{tok.encode(text)}\n"
    code, out, _ = run_cli(capsys, "encode", str(model), text, "--parse-special", "--no-add-special")
    assert json.loads(out) == tok.encode(text, add_special=False, parse_special=True)


def test_parse_special_is_off_by_default_like_llama_tokenize(capsys: pytest.CaptureFixture[str]) -> None:
    _, plain, _ = run_cli(capsys, "encode", str(PHI3), "<|end|>")
    _, parsed, _ = run_cli(capsys, "encode", str(PHI3), "<|end|>", "--parse-special")
    _, explicit, _ = run_cli(capsys, "encode", str(PHI3), "<|end|>", "--no-parse-special")
    assert json.loads(parsed) == [1, 32007]
    assert plain == explicit and len(json.loads(plain)) > 2


def test_pieces_and_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "encode", str(PHI3), "Hello world", "--pieces", "--show-count")
    assert code == 0
    assert out.splitlines() == ["     1 -> '<s>'", " 15043 -> ' Hello'", "  3186 -> ' world'", "Total number of tokens: 3"]


def test_file_and_escape(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    f = tmp_path / "t.txt"
    f.write_bytes(b"a\nb")
    tok = load_tokenizer(PHI3)
    _, from_file, _ = run_cli(capsys, "encode", str(PHI3), "--file", str(f))
    _, escaped, _ = run_cli(capsys, "encode", str(PHI3), r"a\nb", "--escape")
    assert json.loads(from_file) == json.loads(escaped) == tok.encode("a\nb")


def test_unescape_follows_llama_cpp() -> None:
    assert unescape(rb"\t\r\n\'\"\\\x41\x4") == b"\t\r\n'\"\\A\\x4"


def test_jsonl(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ['"Hello"', '{"text": "<|end|>", "parse_special": true, "add_special": false}', ""]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("\n".join(lines).encode())))
    code, out, _ = run_cli(capsys, "encode", str(PHI3), "--jsonl")
    assert code == 0
    assert [json.loads(x) for x in out.splitlines()] == [{"ids": [1, 15043]}, {"ids": [32007]}]


def test_jsonl_rejects_bad_lines(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{nope\n")))
    code, _, err = run_cli(capsys, "encode", str(PHI3), "--jsonl")
    assert code != 0 and "line 1" in err


def test_decode(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "decode", str(PHI3), "[1, 15043, 3186, 32007]")
    assert (code, out) == (0, " Hello world\n")
    _, out, _ = run_cli(capsys, "decode", str(PHI3), "1", "15043", "32007", "--unparse-special")
    assert out == "<s> Hello<|end|>\n"
    _, out, _ = run_cli(capsys, "decode", str(PHI3), "1", "15043", "--remove-special")
    assert out == " Hello\n"  # llama.cpp keeps the space when it drops BOS
    e4 = load_tokenizer(QWEN3).vocab.token_to_id[BYTE_TO_CHAR[0xE4]]
    _, out, _ = run_cli(capsys, "decode", str(QWEN3), str(e4), "--hex")
    assert out == "e4\n"  # a partial UTF-8 piece, shown as its byte


def test_decode_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "decode", str(PHI3), "1", "99999999")
    assert code != 0 and out == "" and "out of range" in err and len(err.splitlines()) == 1
    code, _, err = run_cli(capsys, "decode", str(PHI3), "1", "x")
    assert code != 0 and "integers" in err
