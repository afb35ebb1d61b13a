"""The model picker (``tui-tok`` with no argument): the sample first, then the stores' models with
their architecture and tokenizer filled in by a worker; Enter opens a row, a typed spec opens too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sources"))

from fake_stores import build_home, home_env  # noqa: E402
from textual.widgets import DataTable  # noqa: E402

from tui_tok.samples import DEFAULT_SAMPLE  # noqa: E402
from tui_tok.sources import find_models  # noqa: E402
from tui_tok.ui.screens import picker  # noqa: E402
from tui_tok.ui.screens.picker import PickerApp, sample_choice, stored_choice  # noqa: E402


def _choices(home: Path) -> list[picker.Choice]:
    build_home(home)
    return [sample_choice(), *(stored_choice(m) for m in find_models(home_env(home)))]


async def _settle(app: PickerApp, pilot) -> None:  # type: ignore[no-untyped-def]
    for _ in range(3):
        await app.workers.wait_for_complete()
        await pilot.pause()


async def test_picker_lists_and_opens_a_row(tmp_path: Path) -> None:
    app = PickerApp(_choices(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await _settle(app, pilot)
        table = app.screen.query_one("#picker-table", DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]  # cells are Text
        assert [r[0] for r in rows] == ["sample", "ollama", "ollama", "huggingface", "lmstudio", "llama.cpp"]
        assert rows[0][3:] == ["qwen3", "gpt2/qwen2 · 151,669"]
        assert rows[1][1:2] == ["phi3:mini"] and rows[1][3] == "phi3"
        assert rows[4][3] == "bert" and rows[5][3] == "t5"
        await pilot.press("down", "enter")
    assert app.return_value == "ollama:phi3:mini"


async def test_picker_takes_a_typed_spec_and_quits(tmp_path: Path) -> None:
    app = PickerApp(_choices(tmp_path), read_facts=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.click("#picker-input")
        for ch in "hf:o/r/f.gguf":
            await pilot.press(ch)
        await pilot.press("enter")
    assert app.return_value == "hf:o/r/f.gguf"
    app = PickerApp(_choices(tmp_path / "again"), read_facts=False)
    async with app.run_test() as pilot:
        await pilot.press("escape")
    assert app.return_value is None


def test_no_stores_opens_the_sample_directly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in home_env(tmp_path).items():
        monkeypatch.setenv(k, v)
    for k in ("OLLAMA_MODELS", "HF_HOME", "HF_HUB_CACHE", "LLAMA_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(k, raising=False)
    assert picker.pick_model() == str(DEFAULT_SAMPLE)


async def test_an_ollama_model_is_named_as_typed_not_by_its_blob(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ollama keeps a model as ``blobs/sha256-HEX``: the header shows ``ollama:NAME`` instead."""
    from tui_tok.sources import display_name, read_model
    from tui_tok.ui.app import TuiTokApp

    build_home(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OLLAMA_MODELS", raising=False)
    gguf = read_model("ollama:phi3:mini")
    assert gguf.path.name.startswith("sha256-")
    assert display_name("ollama:phi3:mini", gguf) == "ollama:phi3:mini"
    assert display_name(str(gguf.path), gguf) == gguf.path.name
    app = TuiTokApp(gguf, label=display_name("ollama:phi3:mini", gguf), load_tokenizer=False, show_timings=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert app.sub_title == "ollama:phi3:mini"
        assert "ollama:phi3:mini" in app.screen.facts() and "sha256" not in app.screen.facts()
