"""Remote GGUF files over a local HTTP server: same answers as the local file, only the header's
bytes fetched (counted by the server), and one-line errors for every way a server can fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from http_server import TOKEN, serve
from src_support import run_cli

from support import ASSETS, vocab_files
from tui_tok.errors import GGUFOpenError
from tui_tok.gguf import read_gguf, write_gguf
from tui_tok.gguf.writer import field_value
from tui_tok.loader import load_tokenizer
from tui_tok.sources import read_model, split_info
from tui_tok.sources.http import HttpSource

QWEN3 = ASSETS / "qwen3-vocab.gguf"
TEXT = "Hello world! 日本語 🙂 naïve café\n\tdef f(x): return x ** 2  "


def _info_json(capsys: pytest.CaptureFixture[str], spec: str) -> dict:
    code, out, err = run_cli(capsys, "info", "--json", spec)
    assert code == 0, err
    data = json.loads(out)
    del data["file"]
    return data


@pytest.mark.parametrize("vf", vocab_files(), ids=lambda v: v.name)
def test_every_vocab_agrees_over_http(vf, capsys: pytest.CaptureFixture[str]) -> None:
    with serve({vf.path.name: vf.path}) as (base, state):
        url = f"{base}/range/{vf.path.name}"
        assert _info_json(capsys, url) == _info_json(capsys, str(vf.path))
        try:
            local = load_tokenizer(vf.path).encode(TEXT)
        except Exception as exc:  # a vocab the tokenizer refuses must be refused the same way remotely
            with pytest.raises(type(exc)):
                load_tokenizer(url)
        else:
            assert load_tokenizer(url).encode(TEXT) == local
        assert all(r[1] is not None for r in state.requests), "every request asks for a range"


@pytest.fixture(scope="module")
def big_sparse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 20+ GB model (sparse: its tensor data is a hole) with Qwen3's vocab and a real tensor index."""
    src = read_gguf(QWEN3)
    meta = {k: field_value(f) for k, f in src.fields.items()}
    meta["general.architecture"] = "qwen3"
    tensors = [("token_embd.weight", (5120, 151936), 8)]  # Q8_0; then a 14B's layers in F16 (~31 GB)
    for i in range(48):
        for name, shape in (
            ("attn_q", (5120, 5120)),
            ("attn_k", (5120, 1024)),
            ("attn_v", (5120, 1024)),
            ("attn_output", (5120, 5120)),
            ("ffn_gate", (5120, 17408)),
            ("ffn_up", (5120, 17408)),
            ("ffn_down", (17408, 5120)),
        ):
            tensors.append((f"blk.{i}.{name}.weight", shape, 1))  # F16
    path = write_gguf(tmp_path_factory.mktemp("big") / "big-model.gguf", meta, tensors=tensors)
    if path.stat().st_size < 20 * 1024**3:
        pytest.fail("the model should be 20+ GB")
    if path.stat().st_blocks * 512 > 1024**3:
        pytest.skip("this filesystem does not make sparse files")
    return path


def test_big_sparse_model_costs_its_header(big_sparse: Path) -> None:
    local = read_gguf(big_sparse)
    header = local.data_offset
    with serve({"m.gguf": big_sparse}) as (base, state):
        remote = read_model(f"{base}/range/m.gguf")
    assert remote.file_size == local.file_size > 20 * 1024**3
    assert [t.name for t in remote.tensors] == [t.name for t in local.tensors]
    assert remote.tensors == local.tensors and remote.data_offset == header
    assert remote.get("tokenizer.ggml.tokens") == local.get("tokenizer.ggml.tokens")
    assert state.bytes_sent < 2 * header, (state.bytes_sent, header)


def test_server_without_range_is_cut_after_the_metadata(big_sparse: Path) -> None:
    local = read_gguf(big_sparse)
    with serve({"m.gguf": big_sparse}) as (base, state):
        remote = read_model(f"{base}/norange/m.gguf")
    assert remote.tensors == local.tensors and remote.file_size == local.file_size
    # the server wrote into the socket until the client hung up: far less than the 20 GB
    assert state.bytes_sent < local.data_offset + 256 * 1024**2


def test_redirect_keeps_the_range(capsys: pytest.CaptureFixture[str]) -> None:
    with serve({"q.gguf": QWEN3}) as (base, state):
        remote = read_model(f"{base}/redirect/q.gguf")
    assert remote.get("tokenizer.ggml.tokens") == read_gguf(QWEN3).get("tokenizer.ggml.tokens")
    assert [r[0].split("/")[1] for r in state.requests[:2]] == ["redirect", "range"]
    assert all(r[1] is not None and r[1].startswith("bytes=0-") for r in state.requests[:2])


def test_token_is_sent_and_missing_token_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve({"q.gguf": QWEN3}) as (base, state):
        monkeypatch.setenv("HF_ENDPOINT", base)
        monkeypatch.delenv("HF_TOKEN", raising=False)
        code, out, err = run_cli(capsys, "info", f"{base}/auth/q.gguf")
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "HTTP 401" in err and "HF_TOKEN" in err and "auth/q.gguf" in err
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        code, out, err = run_cli(capsys, "info", f"{base}/auth/q.gguf")
        assert code == 0, err
        assert state.requests[-1][2] == f"Bearer {TOKEN}"


@pytest.mark.parametrize(
    ("mode", "expected"), [("missing", "HTTP 404"), ("html", "HTTP 200 (text/html) is not a GGUF")]
)
def test_not_gguf_is_one_line_with_the_status(mode: str, expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    with serve({"q.gguf": QWEN3}) as (base, _):
        code, out, err = run_cli(capsys, "info", f"{base}/{mode}/q.gguf")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert expected in err and base in err


def test_slow_server_reports_progress() -> None:
    seen: list[tuple[int, int | None]] = []
    with serve({"q.gguf": QWEN3}, slow_delay=0.002) as (base, _):
        remote = read_model(f"{base}/slow/q.gguf", progress=lambda n, total: seen.append((n, total)))
    assert remote.get("tokenizer.ggml.pre") == "qwen2"
    assert len(seen) > 10 and seen[-1][0] == QWEN3.stat().st_size
    assert [n for n, _ in seen] == sorted(n for n, _ in seen)


def test_stalled_server_times_out_in_one_line() -> None:
    with serve({"q.gguf": QWEN3}, slow_delay=2.0) as (base, _):
        src = HttpSource(f"{base}/slow/q.gguf", timeout=0.5)
        src.first_read = 10 << 20
        with pytest.raises(GGUFOpenError, match="no data for 0.5 s"):
            read_gguf(src)


def test_connection_closed_mid_header(capsys: pytest.CaptureFixture[str]) -> None:
    with serve({"q.gguf": QWEN3}, close_after=300_000) as (base, _):
        code, out, err = run_cli(capsys, "info", f"{base}/close/q.gguf")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "closed the connection" in err and "close/q.gguf" in err


def test_hub_shorthands(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``hf:OWNER/REPO/FILE`` and ``OWNER/REPO:QUANT`` resolve to the hub's resolve URL (first shard)."""
    files = {"M-Q4_K_M.gguf": QWEN3, "M-Q8_0-00001-of-00002.gguf": QWEN3}
    repo = ["README.md", "M-Q4_K.gguf", "M-Q4_K_M.gguf", "M-Q8_0-00001-of-00002.gguf", "M-Q8_0-00002-of-00002.gguf"]
    with serve(files, repos={"org/M-GGUF": repo}) as (base, state):
        monkeypatch.setenv("HF_ENDPOINT", base)
        monkeypatch.chdir(tmp_path)
        assert read_model("hf:org/M-GGUF/M-Q4_K_M.gguf").url == f"{base}/org/M-GGUF/resolve/main/M-Q4_K_M.gguf"
        assert read_model("org/M-GGUF:q4_k_m").url.endswith("/M-Q4_K_M.gguf")
        split = read_model("org/M-GGUF:Q8_0")
        assert split.url.endswith("-00001-of-00002.gguf") and split_info(split) == (1, 2)
        code, out, err = run_cli(capsys, "info", "org/M-GGUF:Q8_0")
        assert code == 0 and "split:           shard 1 of 2 (the first shard holds the model's metadata)" in out
        with pytest.raises(GGUFOpenError, match="no GGUF file for 'IQ2_XS'"):
            read_model("org/M-GGUF:IQ2_XS")


@pytest.mark.parametrize(
    "command",
    [
        ["lint", "--json"],
        ["explain", "--json"],
        ["chat", "--json", "--messages", "-"],
        ["decode", "9707"],
        ["encode", "--ids"],
    ],
    ids=lambda c: c[0],
)
def test_every_subcommand_takes_a_url(command: list[str], capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """lint, explain, chat, decode and encode read a URL as they read the local file (same output)."""
    import io
    import sys

    def run(spec: str) -> str:
        stdin = '[{"role": "user", "content": "hi"}]' if command[0] == "chat" else ""
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
        text = ["Hello world"] if command[0] in ("explain", "encode") else []
        args = [command[0], spec, *text, *command[1:]]
        code, out, err = run_cli(capsys, *args)
        assert code in (0, 1), err  # lint exits 1 on an error finding
        return out.replace(spec, "MODEL")

    with serve({QWEN3.name: QWEN3}) as (base, _state):
        assert run(f"{base}/range/{QWEN3.name}") == run(str(QWEN3))
