"""Servers and names an attacker controls: the token goes only to HF_ENDPOINT's scheme, host and port
(two local servers on two ports are two hosts), a header arrives within a deadline, a reply that is
not HTTP or a 206 from the wrong offset is one line, and ``hf:`` names cannot reshape the URL."""

from __future__ import annotations

import struct
import time
from pathlib import Path

import pytest
from http_server import TOKEN, serve
from src_support import run_cli

from support import ASSETS
from tui_tok.errors import GGUFOpenError
from tui_tok.sources import read_model
from tui_tok.sources.http import origin, token_for
from tui_tok.sources.resolve import hf_file_url, hf_repo_files

QWEN3 = ASSETS / "qwen3-vocab.gguf"
FILES = {"q.gguf": QWEN3}


def _auth(state) -> list[str | None]:  # type: ignore[no-untyped-def]
    return [r[2] for r in state.requests]


def test_token_goes_only_to_the_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(FILES) as (hub, hub_state), serve(FILES) as (other, other_state):
        hub_state.redirect_to = other
        monkeypatch.setenv("HF_ENDPOINT", hub)
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        read_model(f"{hub}/range/q.gguf")
        assert _auth(hub_state) and set(_auth(hub_state)) == {f"Bearer {TOKEN}"}
        read_model(f"{other}/range/q.gguf")  # another port is another host
        assert other_state.requests and set(_auth(other_state)) == {None}
        n = len(other_state.requests)
        read_model(f"{hub}/away/q.gguf")  # the hub redirects to the other host: the token stays behind
        assert hub_state.requests[-1][0] == "/away/q.gguf" and hub_state.requests[-1][2] == f"Bearer {TOKEN}"
        assert len(other_state.requests) > n and set(_auth(other_state)) == {None}


def test_token_keeps_the_endpoints_scheme(monkeypatch: pytest.MonkeyPatch) -> None:
    """HF_ENDPOINT says https: the same host and port over http never get the token."""
    with serve(FILES) as (base, state):
        monkeypatch.setenv("HF_ENDPOINT", base.replace("http://", "https://"))
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        read_model(f"{base}/range/q.gguf")
        assert set(_auth(state)) == {None}
    hub = origin("https://huggingface.co")
    assert token_for("https://HuggingFace.co:443/x", TOKEN, hub) == TOKEN
    assert token_for("http://huggingface.co/x", TOKEN, hub) is None  # an https -> http redirect drops it
    assert token_for("https://huggingface.co.evil.example/x", TOKEN, hub) is None
    assert token_for("https://huggingface.co:8443/x", TOKEN, hub) is None


def test_file_list_redirect_drops_the_token(monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(FILES) as (hub, hub_state), serve(FILES, repos={"o/r": ["M-Q4_K_M.gguf"]}) as (other, other_state):
        hub_state.api_redirect_to = other
        monkeypatch.setenv("HF_ENDPOINT", hub)
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        assert hf_repo_files("o", "r") == ["M-Q4_K_M.gguf"]
        assert _auth(hub_state) == [f"Bearer {TOKEN}"]
        assert _auth(other_state) == [None]


def test_token_is_never_in_an_error(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with serve(FILES) as (base, _):
        monkeypatch.setenv("HF_ENDPOINT", base)
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        code, out, err = run_cli(capsys, "info", f"{base}/echo/q.gguf")  # the reason phrase repeats it
        assert code == 2 and err.count("\n") == 1 and "HTTP 401" in err and TOKEN not in err
        monkeypatch.setenv("HF_TOKEN", "se\r\nX-Leak: cret")
        code, out, err = run_cli(capsys, "info", f"{base}/range/q.gguf")
        assert code == 2 and err.count("\n") == 1 and "HF_TOKEN holds characters" in err and "cret" not in err


def test_credentials_in_a_url_are_refused_unseen(capsys: pytest.CaptureFixture[str]) -> None:
    with serve(FILES) as (base, state):
        url = base.replace("http://", "http://alice:hunter2@") + "/range/q.gguf"
        code, out, err = run_cli(capsys, "info", url)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert "user:password@" in err and "hunter2" not in err and "alice" not in err
        assert state.requests == []


@pytest.mark.parametrize("mode", ["trickle", "tricklehead"])
def test_a_trickling_server_meets_the_deadline(
    mode: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One byte each 20 ms (each read well inside the 30 s timeout): stopped at the 1 s deadline."""
    monkeypatch.setenv("TUI_TOK_HTTP_DEADLINE", "1")
    with serve(FILES, slow_delay=0.02, trickle_for=6.0) as (base, _):
        t0 = time.monotonic()
        code, out, err = run_cli(capsys, "info", f"{base}/{mode}/q.gguf")
        took = time.monotonic() - t0
    assert code == 2 and err.count("\n") == 1, err
    assert "did not arrive within 1 s" in err and "TUI_TOK_HTTP_DEADLINE" in err
    assert took < 4, took


@pytest.mark.parametrize(
    ("reply", "what"),
    [
        (b"HTTP/1.1 200 " + b"x" * 70_000 + b"\r\n\r\n", "a line longer than 64 KiB"),
        (b"SSH-2.0-OpenSSH\r\n\r\n", "no valid status line"),
        (b"HTTP/1.1 206 OK\r\n" + b"X-A: b\r\n" * 101 + b"\r\n", "malformed headers"),
        (b"HTTP/1.1 206 OK\r\nX-Long: " + b"y" * 70_000 + b"\r\n\r\n", "a line longer than 64 KiB"),
    ],
    ids=["long-status", "bad-status", "many-headers", "long-header"],
)
def test_a_reply_that_is_not_http_is_one_line(reply: bytes, what: str, capsys: pytest.CaptureFixture[str]) -> None:
    with serve(FILES, raw_reply=reply) as (base, _):
        code, out, err = run_cli(capsys, "info", f"{base}/raw/q.gguf")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"the reply of {base.removeprefix('http://')} is not valid HTTP: {what}" in err


def test_a_206_from_the_wrong_offset_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with serve(FILES) as (base, _):
        code, out, err = run_cli(capsys, "info", f"{base}/badrange/q.gguf")
    assert code == 2 and err.count("\n") == 1
    host = base.removeprefix("http://")
    assert f"{host} answered a request for the bytes from 0 with Content-Range 'bytes 5-" in err


@pytest.mark.parametrize(
    "spec",
    [
        "hf:o/r?q=1#frag/x.gguf",
        "hf:o/../x.gguf",
        "hf:o/r/../../x.gguf",
        "hf:o/r@../x.gguf",
        "hf:o/r@a?b/x.gguf",
        "hf:o\r\nX-Evil: 1/r/x.gguf",
        "hf:o/r/x\r\nX-Evil: 1.gguf",
        "../..:Q4_K_M",
    ],
)
def test_hf_names_cannot_reshape_the_url(
    spec: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with serve(FILES) as (base, state):
        monkeypatch.setenv("HF_ENDPOINT", base)
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        monkeypatch.chdir(tmp_path)
        code, out, err = run_cli(capsys, "info", spec)
        assert state.requests == [], state.requests
    assert code == 2 and err.count("\n") == 1 and "\r" not in err, err


def test_hf_names_are_percent_encoded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "https://hub.example")
    assert hf_file_url("o/r@v1.0/dir/a b#c?.gguf") == "https://hub.example/o/r/resolve/v1.0/dir/a%20b%23c%3F.gguf"
    with pytest.raises(GGUFOpenError, match="not a hub owner or repository name"):
        hf_file_url("o--x/r/x.gguf")


def test_file_list_errors_never_hold_the_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub's 401 repeats the Authorization header in its reason phrase: scrubbed from the error."""
    with serve(FILES, api_echo=True) as (hub, _):
        monkeypatch.setenv("HF_ENDPOINT", hub)
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        with pytest.raises(GGUFOpenError) as info:
            hf_repo_files("o", "r")
    assert "HTTP 401" in str(info.value) and TOKEN not in str(info.value) and "<HF_TOKEN>" in str(info.value)


def test_a_server_claiming_10_tb_and_a_2_40_byte_string(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Content-Range says 10^13 bytes, the file says its name is 2^40 bytes long: one line, and no
    range asked for is bigger than the first read."""
    liar = tmp_path / "liar.gguf"
    key = b"general.name"
    liar.write_bytes(
        b"GGUF" + struct.pack("<IQQQ", 3, 0, 1, len(key)) + key + struct.pack("<IQ", 8, 2**40) + bytes(300_000)
    )
    with serve({"liar.gguf": liar}, claim_size=10**13) as (base, state):
        code, out, err = run_cli(capsys, "info", f"{base}/range/liar.gguf")
    assert code == 2 and err.count("\n") == 1 and "is more than the 16777216 bytes a string may have" in err
    spans = [int(b) - int(a) + 1 for a, b in (r[1].removeprefix("bytes=").split("-") for r in state.requests)]
    assert max(spans) <= 1 << 20, spans


def test_a_file_list_trickling_its_headers_meets_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUI_TOK_HTTP_DEADLINE", "1")
    with serve(FILES, api_trickle=True, slow_delay=0.02, trickle_for=6.0) as (hub, _):
        monkeypatch.setenv("HF_ENDPOINT", hub)
        t0 = time.monotonic()
        with pytest.raises(GGUFOpenError, match="did not answer within 1 s"):
            hf_repo_files("o", "r")
        assert time.monotonic() - t0 < 4


def test_ranges_are_asked_in_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """However much the reader wants, one request asks for WINDOW bytes at most."""
    from tui_tok.sources import http

    monkeypatch.setattr(http, "WINDOW", 1 << 20)
    with serve(FILES) as (base, state):
        src = http.HttpSource(f"{base}/range/q.gguf")
        assert len(src.prefix(5_000_000)) == 5_000_000
        src.close()
    spans = [int(b) - int(a) + 1 for a, b in (r[1].removeprefix("bytes=").split("-") for r in state.requests)]
    assert max(spans) == 1 << 20 and sum(spans) == 5_000_000
