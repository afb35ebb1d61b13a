"""``tui-tok MODEL [--text FILE]``: the explorer on a file's exact bytes, and no drawing into a pipe."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from ui_support import make_app, settle

from support import vocab_file
from tui_tok.cli import app as app_cli, main

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
    # the explorer reads the text in its loading worker: run what it would run
    monkeypatch.setattr("tui_tok.ui.app.run_app", lambda opening: seen.append(opening.read(lambda _: None).text) or 0)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main([str(vocab_file("qwen3-vocab").path), "--text", str(path)]) == 0
    fake_stdin = io.TextIOWrapper(io.BytesIO(RAW))
    monkeypatch.setattr(sys, "stdin", fake_stdin)
    monkeypatch.setattr(app_cli, "_keys_from_terminal", lambda: None)
    assert main([str(vocab_file("qwen3-vocab").path), "--text", "-"]) == 0
    assert seen == [RAW.decode("utf-8", "surrogateescape")] * 2
    assert seen[0].encode("utf-8", "surrogateescape") == RAW


def test_missing_text_file_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
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


async def test_the_explorer_paints_before_it_reads() -> None:
    """The terminal stayed blank while the file and the --text were read and the views built
    (1-1.4 s; 5.5 s with 10 MB of text): the header and "loading…" come first now."""
    import threading

    from textual.widgets import Static

    from tui_tok.cli.app import opening
    from tui_tok.ui.app import LoadingScreen, TuiTokApp

    release = threading.Event()

    def slow_text() -> str:
        release.wait(30)
        return "from the file\r\n"

    app = TuiTokApp(opening=opening(str(vocab_file("qwen3-vocab").path), text=slow_text), show_timings=False)
    async with app.run_test(size=(80, 24)) as pilot:
        while app.first_paint_at is None:
            await pilot.pause(0.01)
        assert isinstance(app.screen, LoadingScreen)
        assert str(app.screen.query_one("#loading", Static).render()).endswith("qwen3-vocab.gguf…")
        await pilot.press("f3", "f8", "q")  # no view yet: nothing happens, nothing breaks
        assert isinstance(app.screen, LoadingScreen) and app.is_running
        release.set()
        await settle(app, pilot)
        assert app.current_mode == "tokenize" and app.text == "from the file\r\n"
        assert app.sub_title == "qwen3-vocab.gguf" and app.tokenizer is not None


async def test_a_file_that_cannot_be_read_ends_the_explorer_with_its_error(tmp_path: Path) -> None:
    from tui_tok.cli.app import opening
    from tui_tok.gguf.reader import GGUFFormatError
    from tui_tok.ui.app import TuiTokApp

    bad = tmp_path / "bad.gguf"
    bad.write_text("this is not a GGUF file at all\n")
    app = TuiTokApp(opening=opening(str(bad)))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
    assert isinstance(app.load_error, GGUFFormatError) and "bad.gguf" in str(app.load_error)
    assert app.return_code == 2
