"""The model picker (``tui-tok`` with no argument): the sample first, then the stores' models with
their architecture and tokenizer filled in by a worker; Enter opens a row, a typed spec opens too;
what cannot be opened says why inside the picker, which stays open."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sources"))

from fake_stores import QWEN3, build_home, home_env
from textual.widgets import DataTable, Input, Static

from tui_tok.samples import DEFAULT_SAMPLE
from tui_tok.sources import find_models
from tui_tok.ui.screens import picker
from tui_tok.ui.screens.picker import Picked, PickerApp, sample_choice, stored_choice


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
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]  # cells are Text
        assert [r[0] for r in rows] == ["sample", "ollama", "ollama", "huggingface", "lmstudio", "llama.cpp"]
        assert rows[0][3:] == ["qwen3", "gpt2/qwen2 · 151,669"]
        assert rows[1][1:2] == ["phi3:mini"] and rows[1][3] == "phi3"
        assert rows[4][3] == "bert" and rows[5][3] == "t5"
        await pilot.press("down", "enter")
        await _settle(app, pilot)
    picked = app.return_value
    assert isinstance(picked, Picked) and picked.spec == "ollama:phi3:mini"
    assert picked.gguf.get("general.architecture") == "phi3"


async def test_picker_takes_a_typed_spec_and_quits(tmp_path: Path) -> None:
    opened: list[str] = []

    def opener(spec: str):  # type: ignore[no-untyped-def]
        opened.append(spec)
        return picker.open_spec(str(QWEN3))

    app = PickerApp(_choices(tmp_path), read_facts=False, opener=opener)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.click("#picker-input")
        for ch in "hf:o/r/f.gguf":
            await pilot.press(ch)
        await pilot.press("enter")
        await _settle(app, pilot)
    assert opened == ["hf:o/r/f.gguf"]
    assert isinstance(app.return_value, Picked) and app.return_value.spec == "hf:o/r/f.gguf"
    app = PickerApp(_choices(tmp_path / "again"), read_facts=False)
    async with app.run_test() as pilot:
        await pilot.press("escape")
    assert app.return_value is None


async def test_typing_a_path_on_the_table_fills_the_box_and_never_quits(tmp_path: Path) -> None:
    """The table has the focus; ``~/models/qwen3.gguf`` quit at its ``q``."""
    app = PickerApp(_choices(tmp_path), read_facts=False)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.focused is not None and app.focused.id == "picker-table"
        await pilot.press(*"~/models/qwen3.gguf")
        assert app.is_running
        assert app.screen.query_one("#picker-input", Input).value == "~/models/qwen3.gguf"
        await pilot.press("ctrl+q")
    assert app.return_value is None


async def test_a_mistyped_path_and_a_broken_row_stay_in_the_picker(tmp_path: Path) -> None:
    """The app exited with the error on the shell; now the error is a line in the picker, which
    stays open, and a truncated file in a store says why in its row."""
    paths = build_home(tmp_path)
    broken = paths["llama.cpp"].parent / "truncated.gguf"
    broken.write_bytes(QWEN3.read_bytes()[:100_000])
    choices = [sample_choice(), *(stored_choice(m) for m in find_models(home_env(tmp_path)))]
    row = next(i for i, c in enumerate(choices) if c.path == broken)
    app = PickerApp(choices)
    async with app.run_test(size=(120, 30)) as pilot:
        await _settle(app, pilot)
        table = app.screen.query_one("#picker-table", DataTable)
        cells = table.get_row_at(row)
        assert "?" not in str(cells[3]) and "cannot open: offset 273" in str(cells[4])
        await pilot.press(*"/no/such/model.gguf", "enter")
        await _settle(app, pilot)
        status = app.screen.query_one("#picker-status", Static)
        assert app.is_running and "/no/such/model.gguf: no such file" in str(status.render())
        assert status.has_class("-error")
        table.move_cursor(row=row)
        table.focus()
        await pilot.press("enter")
        await _settle(app, pilot)
        assert app.is_running and "truncated.gguf: offset 273" in str(status.render())
        table.move_cursor(row=0)
        await pilot.press("enter")  # the sample still opens
        await _settle(app, pilot)
    assert isinstance(app.return_value, Picked) and app.return_value.spec == str(DEFAULT_SAMPLE)


def test_no_stores_opens_the_sample_directly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in home_env(tmp_path).items():
        monkeypatch.setenv(k, v)
    for k in ("OLLAMA_MODELS", "HF_HOME", "HF_HUB_CACHE", "LLAMA_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(k, raising=False)
    assert picker.pick_model() == str(DEFAULT_SAMPLE)


async def test_an_ollama_model_is_named_as_typed_not_by_its_blob(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
