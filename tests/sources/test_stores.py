"""Local model stores faked in a temporary home: found by ``find_models`` and ``tui-tok --list``,
opened by ``ollama:NAME[:TAG]``; the tools' environment variables move the stores."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from fake_stores import PHI3, QWEN3, build_home, home_env, limited_run, ollama_model, sparse_liar

from support import ROOT
from tui_tok.errors import GGUFOpenError
from tui_tok.sources import find_models, ollama_blob, read_model


def test_every_store_is_found(tmp_path: Path) -> None:
    where = build_home(tmp_path)
    found = find_models(home_env(tmp_path))
    assert [(m.store, m.name) for m in found] == [
        ("ollama", "phi3:mini"),
        ("ollama", "qwen3:latest"),
        ("huggingface", "Qwen/Qwen3-GGUF/Qwen3-Q4_K_M.gguf"),
        ("lmstudio", "bge/bge-GGUF/bge-small.gguf"),
        ("llama.cpp", "ggml-org_t5-GGUF_t5-unigram.gguf"),
    ]
    assert found[0].path.read_bytes() == PHI3.read_bytes() and found[0].spec == "ollama:phi3:mini"
    assert found[2].path == where["hf"] and found[2].size == QWEN3.stat().st_size


def test_environment_variables_move_the_stores(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = home_env(home)
    env.update(OLLAMA_MODELS=str(tmp_path / "om"), HF_HOME=str(tmp_path / "hf"), LLAMA_CACHE=str(tmp_path / "lc"))
    ollama_model(tmp_path / "om", "m", "7b", PHI3, namespace="someone")
    (tmp_path / "hf" / "hub" / "models--a--b" / "snapshots" / "r").mkdir(parents=True)
    shutil.copyfile(PHI3, tmp_path / "hf" / "hub" / "models--a--b" / "snapshots" / "r" / "x.gguf")
    (tmp_path / "lc").mkdir()
    shutil.copyfile(PHI3, tmp_path / "lc" / "y.gguf")
    assert [(m.store, m.name) for m in find_models(env)] == [
        ("ollama", "someone/m:7b"),
        ("huggingface", "a/b/x.gguf"),
        ("llama.cpp", "y.gguf"),
    ]
    assert ollama_blob("someone/m:7b", env=env).read_bytes() == PHI3.read_bytes()
    env["HF_HUB_CACHE"] = str(tmp_path / "nowhere")
    assert "huggingface" not in {m.store for m in find_models(env)}


def test_ollama_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build_home(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OLLAMA_MODELS", raising=False)
    assert read_model("ollama:qwen3").get("tokenizer.ggml.pre") == "qwen2"  # tag defaults to latest
    assert read_model("ollama:phi3:mini").get("general.architecture") == read_model(str(PHI3)).get(
        "general.architecture"
    )
    with pytest.raises(GGUFOpenError, match=r"ollama:phi3: no such model .*phi3:mini, qwen3:latest"):
        read_model("ollama:phi3")
    with pytest.raises(GGUFOpenError, match="not a model name"):
        read_model("ollama:../x")


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = home_env(home)
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "tui_tok", *args], capture_output=True, text=True, timeout=60, env=env, cwd=ROOT
    )


def test_list_shows_size_architecture_and_tokenizer(tmp_path: Path) -> None:
    where = build_home(tmp_path)
    r = _cli(tmp_path, "--list")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 5
    kib = f"{PHI3.stat().st_size / 1024:.0f}"
    assert lines[0].split()[:4] == ["ollama", kib, "KiB", "phi3"] and "ollama:phi3:mini" in lines[0]
    assert "llama/default (32,064 tokens)" in lines[0]
    assert "qwen3" in lines[1] and "gpt2/qwen2 (151,669 tokens)" in lines[1]
    assert (
        lines[0].endswith("ollama:phi3:mini")
        and str(where["hf"]) in lines[2]
        and str(where["lmstudio"]) in lines[3]
        and "bert" in lines[3]
    )
    assert lines[4].startswith("llama.cpp") and "t5" in lines[4]


def test_list_with_no_stores_says_where_it_looked(tmp_path: Path) -> None:
    r = _cli(tmp_path, "--list")
    assert r.returncode == 0 and r.stdout == ""
    assert f"no GGUF files found in: {tmp_path / '.ollama' / 'models'}" in r.stderr


def test_info_and_encode_through_ollama(tmp_path: Path) -> None:
    build_home(tmp_path)
    r = _cli(tmp_path, "info", "ollama:phi3:mini")
    assert r.returncode == 0 and "architecture:    'phi3'" in r.stdout, r.stderr
    local = _cli(tmp_path, "encode", str(PHI3), "Hello world")
    assert _cli(tmp_path, "encode", "ollama:phi3:mini", "Hello world").stdout == local.stdout != ""
    missing = _cli(tmp_path, "info", "ollama:nope")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "ollama:nope" in missing.stderr


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX only")
def test_unreadable_store_entries_are_skipped(tmp_path: Path) -> None:
    build_home(tmp_path)
    manifest = tmp_path / ".ollama" / "models" / "manifests" / "registry.ollama.ai" / "library" / "bad" / "x"
    manifest.parent.mkdir(parents=True)
    manifest.write_text("not json")
    assert "bad:x" not in {m.name for m in find_models(home_env(tmp_path))}


@pytest.mark.skipif(sys.platform != "linux", reason="needs RLIMIT_AS and sparse files")
def test_a_lying_file_in_a_store_is_one_row(tmp_path: Path) -> None:
    """A sparse 21 GiB file claiming a 20 GiB string, in llama.cpp's cache: ``--list`` still lists
    every model, that row says why (run with the address space capped at 3 GiB)."""
    build_home(tmp_path)
    if sparse_liar(tmp_path / ".cache" / "llama.cpp" / "liar.gguf") is None:
        pytest.skip("this filesystem does not make sparse files")
    r = limited_run(["--list"], home_env(tmp_path))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 6 and "qwen3" in lines[1]
    liar = [line for line in lines if "liar.gguf" in line]
    assert len(liar) == 1 and "bytes a string may have" in liar[0]


async def test_picker_row_says_why_a_file_is_unreadable(tmp_path: Path) -> None:
    from textual.widgets import DataTable

    from tui_tok.ui.screens.picker import PickerApp, stored_choice

    build_home(tmp_path)
    bad = tmp_path / ".cache" / "llama.cpp" / "bad.gguf"
    head = struct.pack("<4sIQQQ1sIQ", b"GGUF", 3, 0, 1, 1, b"k", 8, 2**40)  # key 'k': a 1 TiB string
    bad.write_bytes(head + bytes(32))
    app = PickerApp([stored_choice(m) for m in find_models(home_env(tmp_path))])
    async with app.run_test(size=(160, 30)) as pilot:
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        table = app.screen.query_one("#picker-table", DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        errors = dict(app.screen.errors)  # in full under the table when the row is highlighted
    index, row = next((i, r) for i, r in enumerate(rows) if "bad.gguf" in str(r[1]))
    assert str(row[4]).startswith("cannot open: ") and "length 1099511627776 exceeds" in errors[index]
    assert any(str(r[3]) == "qwen3" for r in rows)
