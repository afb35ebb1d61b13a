"""Hostile stores and inputs: an ollama manifest that is deeply nested, a FIFO or names a digest with a
NUL; a ``--hf`` folder whose tokenizer.json is a FIFO or deeply nested; ``--jsonl``, ``--messages``,
``--tools`` and ``--set`` given ``'[' * 100000`` or a 30 MB line. Each is one line (exit 2), in
bounded time, and one bad store entry never hides the others."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_stores import PHI3, build_home, home_env
from src_support import run_cli

from support import ASSETS, ROOT
from tui_tok.sources import find_models

QWEN3 = str(ASSETS / "qwen3-vocab.gguf")
DEEP = "[" * 100_000
WIDE = "[" + "[]," * 10_000_000 + "[]]"  # 30 MB: ten million lists


def _manifest(home: Path, name: str) -> Path:
    path = home / ".ollama" / "models" / "manifests" / "registry.ollama.ai" / "library" / name / "x"
    path.parent.mkdir(parents=True)
    return path


def _cli(home: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    env = dict(home_env(home), PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "tui_tok", *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT
    )


def _one_line(r: subprocess.CompletedProcess[str] | tuple[int, str, str], *needles: str) -> None:
    code, err = (r.returncode, r.stderr) if isinstance(r, subprocess.CompletedProcess) else (r[0], r[2])
    assert code == 2 and err.count("\n") == 1 and "internal error" not in err, err
    for needle in needles:
        assert needle in err, err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_bad_ollama_manifests_are_one_line_and_never_break_the_list(tmp_path: Path) -> None:
    build_home(tmp_path)
    _manifest(tmp_path, "deep").write_text(DEEP)
    os.mkfifo(_manifest(tmp_path, "fifo"))
    blob_digest = "sha256:" + "ab" * 32
    layer = {"mediaType": "application/vnd.ollama.image.model", "digest": blob_digest[:20] + "\0/" + blob_digest[22:]}
    _manifest(tmp_path, "nul").write_text(json.dumps({"layers": [layer]}))
    names = [m.name for m in find_models(home_env(tmp_path))]
    assert names[:2] == ["phi3:mini", "qwen3:latest"] and not {"deep:x", "fifo:x", "nul:x"} & set(names)
    r = _cli(tmp_path, "--list")
    assert r.returncode == 0 and "ollama:phi3:mini" in r.stdout, r.stderr
    _one_line(_cli(tmp_path, "info", "ollama:deep:x"), "ollama:deep:x", "nested more than 32 deep")
    _one_line(_cli(tmp_path, "info", "ollama:fifo:x", timeout=20), "ollama:fifo:x", "is a FIFO, not a regular file")
    _one_line(_cli(tmp_path, "info", "ollama:nul:x"), "ollama:nul:x", "names no model layer")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_hf_folder_with_a_hostile_tokenizer_json(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    fifo, deep = tmp_path / "fifo", tmp_path / "deep"
    fifo.mkdir()
    deep.mkdir()
    os.mkfifo(fifo / "tokenizer.json")
    (deep / "tokenizer.json").write_text('{"model": ' + DEEP)
    _one_line(_cli(tmp_path, "diff", str(PHI3), "--hf", str(fifo), "hi", timeout=20), "is a FIFO, not a regular file")
    _one_line(_cli(tmp_path, "diff", str(PHI3), "--hf", str(deep), "hi"), "nested more than 128 deep")


def _stdin(monkeypatch: pytest.MonkeyPatch, data: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.encode())))


@pytest.mark.parametrize("command", [["encode", QWEN3], ["explain", QWEN3], ["diff", QWEN3, QWEN3]], ids=lambda c: c[0])
def test_jsonl_lines_are_bounded(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, '"ok"\n' + DEEP + "\n")
    _one_line(run_cli(capsys, *command, "--jsonl"), "stdin line 2: nested more than 64 deep")
    _stdin(monkeypatch, WIDE + "\n")
    _one_line(run_cli(capsys, *command, "--jsonl"), "stdin line 1: longer than the 16,777,216 bytes allowed")


def test_messages_tools_and_set_are_bounded(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ok = json.dumps([{"role": "user", "content": "hi"}])
    _stdin(monkeypatch, DEEP)
    _one_line(run_cli(capsys, "chat", QWEN3, "--messages", "-"), "stdin: the messages: nested more than 64 deep")
    wide = tmp_path / "wide.json"
    wide.write_text(WIDE)
    _one_line(run_cli(capsys, "chat", QWEN3, "--messages", str(wide)), f"{wide}: the messages: 30,000,004 bytes")
    tools = tmp_path / "tools.json"
    tools.write_text(DEEP)
    _stdin(monkeypatch, ok)
    _one_line(
        run_cli(capsys, "chat", QWEN3, "--messages", "-", "--tools", str(tools)),
        f"{tools}: the tools: nested more than 64 deep",
    )
    _stdin(monkeypatch, ok)
    _one_line(
        run_cli(capsys, "chat", QWEN3, "--messages", "-", "--set", "x=" + "[" * 50_000), "x: nested more than 64 deep"
    )
    _stdin(monkeypatch, ok)
    code, out, err = run_cli(capsys, "chat", QWEN3, "--messages", "-", "--set", "x=[[not json")
    assert code == 0, err  # not JSON at all: the string itself, as before
