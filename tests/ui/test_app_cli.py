"""``tui-tok MODEL [--text FILE]``: the explorer on a file's exact bytes, and no drawing into a pipe."""

from __future__ import annotations

import io
import sys

import pytest

from tui_tok.cli import main
from tui_tok.cli import app as app_cli
from support import vocab_file
from ui_support import make_app, settle

RAW = b"caf\xe9 \x85 ok\r\nline\x00two\n"
"""Latin-1 bytes (not UTF-8), CR LF and NUL: all must reach the tokenizer as they are."""


def test_stdout_not_a_terminal_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """``tui-tok MODEL > file`` wrote escape codes and hung; now: exit 2, one line naming info/encode."""
    code = main([str(vocab_file("qwen3-vocab").path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "not a terminal" in err and "tui-tok info" in err and "tui-tok encode" in err


def test_text_file_and_stdin_are_read_as_exact_bytes(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """``--text FILE`` and ``--text -`` hand the app the bytes, undecodable ones kept raw."""
    path = tmp_path / "t.txt"
    path.write_bytes(RAW)
    seen: list[str | None] = []
    monkeypatch.setattr("tui_tok.ui.app.run_app", lambda model, *, text=None, **_: seen.append(text) or 0)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main([str(vocab_file("qwen3-vocab").path), "--text", str(path)]) == 0
    fake_stdin = io.TextIOWrapper(io.BytesIO(RAW))
    monkeypatch.setattr(sys, "stdin", fake_stdin)
    monkeypatch.setattr(app_cli, "_keys_from_terminal", lambda: None)
    assert main([str(vocab_file("qwen3-vocab").path), "--text", "-"]) == 0
    assert seen == [RAW.decode("utf-8", "surrogateescape")] * 2
    assert seen[0].encode("utf-8", "surrogateescape") == RAW


def test_missing_text_file_is_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code = main([str(vocab_file("qwen3-vocab").path), "--text", str(tmp_path / "nope.txt")])
    _, err = capsys.readouterr()
    assert code == 2 and "nope.txt" in err and err.count("\n") == 1


async def test_loaded_bytes_are_tokenized_raw_and_shown() -> None:
    """The file's text gives the ids of ``encode --file`` (the raw bytes); the bad bytes show as \\xNN."""
    text = RAW.decode("utf-8", "surrogateescape")
    app = make_app(vocab_file("qwen3-vocab").path, text=text)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.tokenizer is not None
        assert list(app.ids) == app.tokenizer.encode(RAW)
        from tui_tok.ui.widgets.token_view import TokenView

        row = app.screen.query_one("#tok-view", TokenView).build_row(0).text
        assert "\\xE9" in row and "\\x85" in row and "␍" in row
