"""Every command's output on a GGUF file full of escape sequences and 8-bit controls: the file's
ESC, CSI, OSC, BEL and NEL never reach stdout or stderr raw; JSON escapes them (and parses back to
the same strings); ``decode``, ``encode`` and ``chat`` write the raw bytes into a pipe or with
``--raw`` only, and show them visibly to a terminal."""

from __future__ import annotations

import json
import shutil
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cli_support import run_cli

from hostile_files import HOSTILE_ID, HOSTILE_TOKEN, OSC_TITLE, TEMPLATE_NAME, raw_controls, spm_file
from support import ASSETS, HAVE_SHARED, SHARED, SHARED_MISSING

PHI3 = str(ASSETS / "ggml-vocab-phi-3.gguf")


@pytest.fixture
def hostile(tmp_path: Path) -> str:
    return str(spm_file(tmp_path))


def _clean(out: str, err: str = "") -> None:
    assert raw_controls(out) == [] and raw_controls(err) == [], (out, err)


def test_info_and_lint(capsys: pytest.CaptureFixture[str], tmp_path: Path, hostile: str) -> None:
    named = tmp_path / ("t" + OSC_TITLE + "[/].gguf").replace("/", "|")
    shutil.copyfile(hostile, named)
    code, out, err = run_cli(capsys, "info", str(named))
    assert code == 0 and "file:            " + str(tmp_path) + "/t␛]2;PWNED␛\\[|].gguf" in out
    _clean(out, err)
    code, out, err = run_cli(capsys, "info", hostile, "--json")
    _clean(out, err)
    assert json.loads(out)["metadata"]["general.architecture"].startswith("phi3[/]" + OSC_TITLE)
    code, out, err = run_cli(capsys, "info", hostile, "--json", "--full")
    _clean(out, err)
    code, out, err = run_cli(capsys, "lint", str(named))
    _clean(out, err)
    assert "no[/]␛]2;PWNED" in out  # the template's raise_exception, quoted visibly
    assert out.splitlines()[-1].startswith(str(tmp_path) + "/t␛]2;PWNED")  # the summary line names the file
    code, out, err = run_cli(capsys, "lint", hostile, "--json")
    _clean(out, err)
    assert any(OSC_TITLE in f["message"] for f in json.loads(out)["findings"])


def test_errors_name_the_file_visibly(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(capsys, "info", str(tmp_path / ("missing" + OSC_TITLE + ".gguf")))
    assert code == 2 and "missing␛]2;PWNED␛\\.gguf" in err and err.count("\n") == 1
    _clean(out, err)


def test_chat(capsys: pytest.CaptureFixture[str], tmp_path: Path, hostile: str,
              monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    messages = tmp_path / "m.json"
    messages.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    code, out, err = run_cli(capsys, "chat", hostile, "--messages", str(messages))
    assert code == 2 and "no[/]␛]2;PWNED" in err  # raise_exception's message
    _clean(out, err)
    code, out, err = run_cli(capsys, "chat", hostile, "--messages", str(messages), "--template", "nope")
    assert code == 2 and "rag[/]␛]2;PWNED" in err
    _clean(out, err)
    code, out, err = run_cli(
        capsys, "chat", hostile, "--messages", str(messages), "--template", TEMPLATE_NAME, "--json"
    )
    _clean(out, err)
    assert json.loads(out)["text"] == "raghi[/]" + OSC_TITLE
    code, out, err = run_cli(capsys, "chat", hostile, "--messages", str(messages), "--template", TEMPLATE_NAME)
    assert out == "raghi[/]" + OSC_TITLE + "\n"  # into a pipe: the bytes the template made
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = run_cli(capsys, "chat", hostile, "--messages", str(messages), "--template", TEMPLATE_NAME)
    assert out == "raghi[/]␛]2;PWNED␛\\\n"
    code, out, err = run_cli(capsys, "chat", hostile, "--messages", str(messages), "--template", TEMPLATE_NAME, "--raw")
    assert out == "raghi[/]" + OSC_TITLE + "\n"


def test_decode_and_encode(capsys: pytest.CaptureFixture[str], hostile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run_cli(capsys, "decode", hostile, str(HOSTILE_ID))
    assert code == 0 and out == HOSTILE_TOKEN + "\n"  # into a pipe: as llama.cpp's detokenize
    code, out, _ = run_cli(capsys, "encode", hostile, "-p", "x\x1b[7m", "--no-bos")
    assert "'\x1b'" in out
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, _ = run_cli(capsys, "decode", hostile, str(HOSTILE_ID))
    assert code == 0 and out == "␛[7m[/]⟨009B⟩7m\n"
    code, out, _ = run_cli(capsys, "decode", hostile, str(HOSTILE_ID), "--raw")
    assert out == HOSTILE_TOKEN + "\n"
    code, out, _ = run_cli(capsys, "encode", hostile, "-p", HOSTILE_TOKEN, "--no-bos")
    assert "    30 -> '␛'" in out and "   197 -> '\\xC2'" in out  # ESC, and 8-bit CSI's bytes as byte tokens
    _clean(out)
    code, out, _ = run_cli(capsys, "encode", hostile, "-p", "x\x1b[7m", "--no-bos", "--raw")
    assert "'\x1b'" in out


def test_explain(capsys: pytest.CaptureFixture[str], hostile: str) -> None:
    code, out, err = run_cli(capsys, "explain", hostile, HOSTILE_TOKEN)
    assert code == 0
    _clean(out, err)
    code, out, err = run_cli(capsys, "explain", hostile, HOSTILE_TOKEN, "--json")
    _clean(out, err)
    json.loads(out)


def test_diff(capsys: pytest.CaptureFixture[str], hostile: str) -> None:
    for extra in ((), ("--json",)):
        code, out, err = run_cli(capsys, "diff", PHI3, hostile, "x" + HOSTILE_TOKEN, *extra)
        assert code == 1
        _clean(out, err)
    code, out, err = run_cli(capsys, "diff", PHI3, hostile, "x" + HOSTILE_TOKEN)
    assert "first difference at byte 0 (token 0): A 1 '<s>' [0:0]  B 1 '<s␛]2;PWNED␛\\[/]>'" in out  # BOS texts
    code, out, err = run_cli(capsys, "diff", PHI3, hostile, "--vocab")
    assert code == 1 and "b.key␛[7m⟨0085⟩" in out  # a key only in B
    _clean(out, err)
    code, out, err = run_cli(capsys, "diff", PHI3, hostile, "--vocab", "--json")
    _clean(out, err)
    assert "b.key\x1b[7m\x85" in json.loads(out)["metadata"]["only_b"]


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
def test_diff_hf_added_token(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A tokenizer.json whose added token is an escape sequence: the rows show it visibly."""
    pytest.importorskip("tokenizers", reason="tokenizers not installed (pip install tui-tok[hf])")
    folder = tmp_path / "hf"
    folder.mkdir()
    shutil.copyfile(SHARED / "data/hf/qwen3/tokenizer_config.json", folder / "tokenizer_config.json")
    doc = json.loads((SHARED / "data/hf/qwen3/tokenizer.json").read_text(encoding="utf-8"))
    new_id = max(t["id"] for t in doc["added_tokens"]) + 1
    doc["added_tokens"].append({"id": new_id, "content": OSC_TITLE + "\x9b7m", "single_word": False, "lstrip": False,
                                "rstrip": False, "normalized": False, "special": False})  # fmt: skip
    (folder / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
    text = "a" + OSC_TITLE + "\x9b7m"
    code, out, err = run_cli(capsys, "diff", str(SHARED / "data/qwen3-vocab.gguf"), "--hf", str(folder), text)
    assert code == 1 and "␛]2;PWNED" in out
    _clean(out, err)
    code, out, err = run_cli(capsys, "diff", str(SHARED / "data/qwen3-vocab.gguf"), "--hf", str(folder), text, "--json")
    _clean(out, err)


def test_list(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, hostile: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "home" / ".cache" / "llama.cpp"
    cache.mkdir(parents=True)
    shutil.copyfile(hostile, cache / ("x[bold]y" + OSC_TITLE.replace("\\", "") + ".gguf"))
    for var in ("OLLAMA_MODELS", "HF_HOME", "HF_HUB_CACHE", "LLAMA_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    code, out, err = run_cli(capsys, "--list")
    assert code == 0 and "phi3[/]␛]2;PWNED" in out and "x[bold]y␛]2;PWNED␛.gguf" in out
    _clean(out, err)


class _LyingServer(BaseHTTPRequestHandler):
    """Answers every request with a 404 whose reason phrase and Content-Type hold escape sequences."""

    def do_GET(self) -> None:
        self.send_response(404, "Not" + OSC_TITLE + "Found")
        self.send_header("Content-Type", "text/\x1b[7m\x9bhtml")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_HEAD = do_GET

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


def test_http_error_quotes_the_server_visibly(capsys: pytest.CaptureFixture[str]) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _LyingServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        code, out, err = run_cli(capsys, "info", f"http://127.0.0.1:{server.server_address[1]}/m.gguf")
    finally:
        server.shutdown()
        server.server_close()
    assert code == 2 and err.count("\n") == 1 and "Not␛]2;PWNED␛\\Found" in err, err
    _clean(out, err)
