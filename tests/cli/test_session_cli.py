"""Session files on the command line: ``tui-tok MODEL --session FILE`` and ``chat --messages SESSION``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_cli

from support import ASSETS
from tui_tok.explore.session_file import ChatState, SessionState, save

QWEN3 = str(ASSETS / "qwen3-vocab.gguf")
PHI3 = str(ASSETS / "ggml-vocab-phi-3.gguf")
RAW = b"caf\xe9 ok\r\nline\x00two\n"
TOOLS = '[{"type": "function", "function": {"name": "now", "parameters": {}}}]'  # as llama-server accepts it


def _session(tmp_path: Path, **kw: Any) -> Path:
    chat = ChatState(messages=[{"role": "user", "content": "Hi"}], tools_text=TOOLS)
    path = tmp_path / "s.json"
    save(
        path,
        SessionState(text=RAW.decode("utf-8", "surrogateescape"), toggles={"parse_special": True}, chat=chat, **kw),
    )
    return path


def test_chat_reads_a_session_as_its_conversation(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _session(tmp_path)
    code, out, _ = run_cli(capsys, "chat", QWEN3, "--messages", str(path), "--json")
    listed = tmp_path / "m.json"
    listed.write_text(json.dumps([{"role": "user", "content": "Hi"}]))
    tools = tmp_path / "t.json"
    tools.write_text(TOOLS)
    code2, out2, _ = run_cli(capsys, "chat", QWEN3, "--messages", str(listed), "--tools", str(tools), "--json")
    assert code == code2 == 0 and json.loads(out) == json.loads(out2)
    assert "now" in json.loads(out)["text"]  # the session's tools reached the template
    (tmp_path / "bad.json").write_text('{"messages": [{"content": "x"}]}')
    code, _, err = run_cli(capsys, "chat", QWEN3, "--messages", str(tmp_path / "bad.json"))
    assert code == 2 and "messages[0]" in err and err.count("\n") == 1


def test_app_reopens_a_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _session(tmp_path, compare=PHI3)
    seen: list[Any] = []
    monkeypatch.setattr(
        "tui_tok.ui.app.run_app",
        lambda opening, *, session=None: seen.append((opening.read(lambda _line: None), session)) or 0,
    )
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    from tui_tok.cli import main

    assert main([QWEN3, "--session", str(path)]) == 0
    opened, session = seen[0]
    assert opened.text.encode("utf-8", "surrogateescape") == RAW
    assert session.toggles == {"parse_special": True} and session.chat.messages[0]["content"] == "Hi"
    assert opened.compare is not None and str(opened.compare.path) == PHI3  # the session's compare file is opened
    path = _session(tmp_path, model=PHI3)  # without MODEL: the session's own
    assert main(["--session", str(path)]) == 0
    opened, session = seen[1]
    assert opened.label == "ggml-vocab-phi-3.gguf" and session.model == PHI3
    (tmp_path / "bad.json").write_text('{"format": "tui-tok-session", "version": 1, "text": 3}')
    code = main([QWEN3, "--session", str(tmp_path / "bad.json")])
    err = capsys.readouterr().err
    assert code == 2 and "bad.json: text: expected a string" in err and err.count("\n") == 1
