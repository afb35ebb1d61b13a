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


T5 = ASSETS / "t5-botchan-en-unigram-1000.gguf"


@pytest.mark.parametrize("model", [PHI3, QWEN3], ids=["phi-3", "qwen3"])
def test_encode_ids_is_a_python_list(capsys: pytest.CaptureFixture[str], model) -> None:
    """``--ids`` prints llama-tokenize's ``[1, 2, 3]``; special tokens are parsed by default."""
    tok = load_tokenizer(model)
    text = "Hello world<|end|> <|im_end|>"
    code, out, _ = run_cli(capsys, "encode", str(model), text, "--ids")
    assert code == 0
    assert out == f"{tok.encode(text, add_special=tok.vocab.add_bos, parse_special=True)}\n"
    code, out, _ = run_cli(capsys, "encode", str(model), "-p", text, "--ids", "--no-parse-special", "--no-bos")
    assert json.loads(out) == tok.encode(text, add_special=False, parse_special=False)


def test_qwen3_chat_markup_gives_five_ids_like_llama_tokenize(capsys: pytest.CaptureFixture[str]) -> None:
    """``llama-tokenize -m qwen3.gguf -p '<|im_start|>user\\nhi<|im_end|>'``: escapes and special
    tokens processed by default, no BOS (Qwen3 adds none), ``%6d -> '%s'`` lines."""
    code, out, _ = run_cli(capsys, "encode", str(QWEN3), "-p", r"<|im_start|>user\nhi<|im_end|>")
    assert code == 0
    assert out.splitlines() == [
        "151644 -> '<|im_start|>'",
        "   872 -> 'user'",
        "   198 -> '",
        "'",
        "  6023 -> 'hi'",
        "151645 -> '<|im_end|>'",
    ]
    _, out, _ = run_cli(capsys, "encode", str(QWEN3), r"<|im_start|>user\nhi<|im_end|>", "--ids", "--show-count")
    assert out == "[151644, 872, 198, 6023, 151645]\nTotal number of tokens: 5\n"


def test_parse_special_is_on_by_default_like_llama_tokenize(capsys: pytest.CaptureFixture[str]) -> None:
    _, default, _ = run_cli(capsys, "encode", str(PHI3), "<|end|>", "--ids")
    _, parsed, _ = run_cli(capsys, "encode", str(PHI3), "<|end|>", "--ids", "--parse-special")
    _, plain, _ = run_cli(capsys, "encode", str(PHI3), "<|end|>", "--ids", "--no-parse-special")
    assert json.loads(default) == json.loads(parsed) == [1, 32007]
    assert len(json.loads(plain)) > 2


def test_pieces_and_count(capsys: pytest.CaptureFixture[str]) -> None:
    want = ["     1 -> '<s>'", " 15043 -> ' Hello'", "  3186 -> ' world'", "Total number of tokens: 3"]
    code, out, _ = run_cli(capsys, "encode", str(PHI3), "Hello world", "--show-count")
    assert (code, out.splitlines()) == (0, want)
    _, out, _ = run_cli(capsys, "encode", str(PHI3), "Hello world", "--pieces", "--show-count", "--log-disable")
    assert out.splitlines() == want
    _, out, _ = run_cli(capsys, "encode", "-m", str(PHI3), "-p", "Hello world", "--show-count")
    assert out.splitlines() == want  # llama-tokenize's own -m form


def test_pieces_are_raw_bytes_like_printf(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """Pieces are written as their bytes, as ``printf("%s")`` writes them (not escaped)."""
    from tui_tok.cli import main

    assert main(["encode", str(QWEN3), "-p", "é 🙂"]) == 0
    assert capsysbinary.readouterr().out == "   963 -> 'é'\n 27484 -> ' 🙂'\n".encode()


def test_add_special_follows_add_bos_like_llama_tokenize(capsys: pytest.CaptureFixture[str]) -> None:
    """llama-tokenize passes ``add_special = add_bos && !--no-bos``: T5 adds EOS through the API
    but not through llama-tokenize, since it adds no BOS."""
    tok = load_tokenizer(T5)
    assert not tok.vocab.add_bos and tok.vocab.add_eos
    _, out, _ = run_cli(capsys, "encode", str(T5), "hello", "--ids")
    assert json.loads(out) == tok.encode("hello", add_special=False)


def test_file_escape_and_stdin(capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``-f`` reads the file's bytes and processes escapes in them as llama-tokenize does
    (``--no-escape`` keeps them); ``-f -`` and ``--stdin`` read stdin."""
    f = tmp_path / "t.txt"
    f.write_bytes(b"a\nb\\tc\n")
    tok = load_tokenizer(PHI3)
    _, from_file, _ = run_cli(capsys, "encode", str(PHI3), "-f", str(f), "--ids")
    assert json.loads(from_file) == tok.encode("a\nb\tc\n")
    _, raw, _ = run_cli(capsys, "encode", str(PHI3), "--file", str(f), "--ids", "--no-escape")
    assert json.loads(raw) == tok.encode("a\nb\\tc\n")
    _, typed, _ = run_cli(capsys, "encode", str(PHI3), r"a\nb", "--ids")
    assert json.loads(typed) == tok.encode("a\nb")
    for flags in (["-f", "-"], ["--stdin"], ["--stdin", "-p", "ignored"]):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x\\ty")))
        _, out, err = run_cli(capsys, "encode", str(PHI3), *flags, "--ids")
        assert json.loads(out) == tok.encode("x\ty") and err == ""


def test_reading_stdin_on_a_terminal_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Tty(io.TextIOWrapper):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Tty(io.BytesIO(b"hi")))
    code, out, err = run_cli(capsys, "encode", str(PHI3), "--ids")
    assert code == 0 and json.loads(out) == [1, 7251]
    assert "reading the text from stdin" in err and "Ctrl-D" in err


def test_help_says_the_defaults_without_rest_markup(capsys: pytest.CaptureFixture[str]) -> None:
    from tui_tok.cli import main

    for argv in (
        ["encode", "--help"],
        ["info", "--help"],
        ["decode", "--help"],
        ["export-vocab", "--help"],
        ["--help"],
    ):
        with pytest.raises(SystemExit):
            main(argv)
        out = capsys.readouterr().out
        assert "``" not in out, argv
        if argv[0] == "encode":
            flat = " ".join(out.split())
            assert "(default: on)" in flat and "--no-parse-special" in flat and "--no-escape" in flat


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from tui_tok import __version__
    from tui_tok.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out == f"tui-tok {__version__}\n"


def test_unescape_follows_llama_cpp() -> None:
    assert unescape(rb"\t\r\n\'\"\\\x41\x4") == b"\t\r\n'\"\\A\\x4"
    # strtol reads a sign or a blank before one digit; an unknown escape keeps both characters
    assert unescape(rb"\x-1\x 7\x+f\q\x\n") == b"\xff\x07\x0f\\q\\x\n"


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


@pytest.mark.parametrize(("ids", "says"), [("[1,2", "'[' at column 1 is never closed"), ("1 2]", "']' at column 4 closes no '['"),
                                           ("[[1]]", "inside the list opened at column 1")])  # fmt: skip
def test_decode_brackets_must_balance(capsys: pytest.CaptureFixture[str], ids: str, says: str) -> None:
    """Issue 27: ``decode MODEL "[1,2"`` printed the text of 1 and 2."""
    code, out, err = run_cli(capsys, "decode", str(PHI3), ids)
    assert code == 2 and out == "" and err.count("\n") == 1 and says in err, err


@pytest.mark.parametrize(("change", "says"), [({"model": "foo"}, "unsupported tokenizer.ggml.model 'foo'"),
                                              ({"pre": "qwen-nine"}, "unsupported tokenizer.ggml.pre 'qwen-nine'")])  # fmt: skip
def test_an_unsupported_tokenizer_names_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path, change, says: str
) -> None:  # type: ignore[no-untyped-def]
    """Issue 27: ``encode`` on an unsupported model did not name the file."""
    from lint_support import broken

    path = broken(tmp_path, "qwen3-vocab.gguf", **change)
    for command in ("encode", "explain"):
        code, out, err = run_cli(capsys, command, str(path), "hi")
        assert code == 2 and out == "" and err.count("\n") == 1
        assert err.startswith(f"tui-tok: error: {path}: {says}"), err
