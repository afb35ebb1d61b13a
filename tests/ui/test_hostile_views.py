"""A GGUF file full of Rich markup and terminal escape sequences, opened in every view: nothing
crashes, nothing from the file is read as markup, no control from it reaches the terminal.

What the terminal would receive is the screen as Textual renders it (``export_screenshot``
renders the same segments the driver writes); the file's ESC, 8-bit CSI/OSC, BEL and NEL must
not be among them, and their visible forms (``␛``, ``⟨009B⟩``) must. The views are looked at
without the last guard (``DropControls``, which would hide a view that forgot), then the guard alone.
"""

from __future__ import annotations

import html
import re
import shutil
import sys
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import DataTable, Input, Select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sources"))

from fake_stores import home_env
from ui_support import make_app, settle

from hostile_files import HOSTILE_ID, HOSTILE_TOKEN, TEMPLATE_NAME, raw_controls, spm_file, ugm_file
from tui_tok.sources import find_models
from tui_tok.ui.app import TuiTokApp
from tui_tok.ui.screens.explain import ExplainScreen
from tui_tok.ui.screens.metadata import MetadataScreen
from tui_tok.ui.screens.picker import PickerApp, stored_choice
from tui_tok.ui.widgets.token_view import TokenView

SIZE = (140, 40)


@pytest.fixture(autouse=True)
def _without_the_guard(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's own line filters only: each view must draw the file's strings visibly itself."""
    if "guard" not in request.function.__name__:
        monkeypatch.setattr(TuiTokApp, "get_line_filters", App.get_line_filters)
        monkeypatch.setattr(PickerApp, "get_line_filters", App.get_line_filters)


def _screen(app: TuiTokApp | PickerApp) -> str:
    """The screen's text as drawn (the SVG screenshot's text, its entities decoded)."""
    return html.unescape(re.sub(r"<[^>]*>", "", app.export_screenshot())).replace("\xa0", " ")


async def _visit(app: TuiTokApp, pilot, key: str) -> str:  # type: ignore[no-untyped-def]
    await pilot.press(key)
    await settle(app, pilot)
    shown = _screen(app)
    assert raw_controls(shown) == [], (key, raw_controls(shown))
    return shown


async def test_every_view_of_a_hostile_file(tmp_path: Path) -> None:
    app = make_app(spm_file(tmp_path), text="hi [/] [bold]x" + HOSTILE_TOKEN)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        shown = _screen(app)
        assert raw_controls(shown) == []
        assert "phi3[/]␛]2;PWNED␛\\" in shown  # the info bar: the architecture, visibly
        for key in ("f2", "f3", "f4", "f6", "f7", "f1", "f8", "f9"):
            await _visit(app, pilot, key)
        shown = await _visit(app, pilot, "f4")
        assert "a.key[/]" in shown
        screen = app.screen
        assert isinstance(screen, MetadataScreen)
        for key in ("a.key[/]", "b.key\x1b[7m\x85", "tokenizer.chat_template." + TEMPLATE_NAME, "general.name"):
            screen.show_key(key)  # the detail pane: the key is its title, the value its lines
            await settle(app, pilot)
            shown = _screen(app)
            assert raw_controls(shown) == [], (key, raw_controls(shown))
        assert "b.key␛[7m⟨0085⟩" in shown
        await _visit(app, pilot, "f3")
        app.screen.query_one("#vocab-search", Input).value = f"#{HOSTILE_ID}"
        await settle(app, pilot)
        shown = _screen(app)
        assert "␛[7m[/]⟨009B⟩7m" in shown and raw_controls(shown) == []
        shown = await _visit(app, pilot, "f5")  # the default template raises: the error pane
        assert "no[/]␛]2;PWNED" in shown
        select = app.screen.query_one("#chat-template", Select)
        names = [str(prompt) for prompt, _ in select._options]
        assert any("rag[/]␛]2;PWNED" in n for n in names), names
        select.value = next(v for _, v in select._options if isinstance(v, str) and v.startswith("rag"))
        await settle(app, pilot)
        assert raw_controls(_screen(app)) == []
        shown = await _visit(app, pilot, "ctrl+s")  # the template's source, titled with its name
        assert "template 'rag[/]\\x1b]2;PWNED" in shown and "[/]␛]2;PWNED␛\\" in shown
        await pilot.press("escape")
        await _visit(app, pilot, "f2")  # the stream view's BOS text
        await _visit(app, pilot, "f6")


async def test_ugm_lattice_with_a_markup_token(tmp_path: Path) -> None:
    app = make_app(ugm_file(tmp_path), text="a [/] b")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#tok-view", TokenView).focus()
        await pilot.press("home", "right", "f8")
        await settle(app, pilot)
        assert isinstance(app.screen, ExplainScreen)
        shown = _screen(app)
        assert "[/]" in shown and raw_controls(shown) == []


async def test_compare_two_hostile_files(tmp_path: Path) -> None:
    from tui_tok import read_gguf

    app = TuiTokApp(read_gguf(spm_file(tmp_path)), text="hi [/]" + HOSTILE_TOKEN, show_timings=False,
                    compare=read_gguf(ugm_file(tmp_path)))  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert raw_controls(_screen(app)) == []


async def test_picker_with_hostile_names(tmp_path: Path) -> None:
    """A store's file named with markup and an escape sequence, holding a hostile file: shown as it is."""
    cache = tmp_path / ".cache" / "llama.cpp"
    cache.mkdir(parents=True)
    src = spm_file(tmp_path)
    for name in ("x[bold]y[@click=app.quit]z.gguf", "t\x1b]2;PWNED\x07[dim].gguf"):
        shutil.copyfile(src, cache / name)
    choices = [stored_choice(m) for m in find_models(home_env(tmp_path))]
    assert len(choices) == 2
    app = PickerApp(choices)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        table = app.screen.query_one("#picker-table", DataTable)
        cells = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert {r[1] for r in cells} == {"x[bold]y[@click=app.quit]z.gguf", "t␛]2;PWNED␇[dim].gguf"}
        assert {r[3] for r in cells} == {"phi3[/]␛]2;PWNED␛\\␛[7m⟨009B⟩7m"}
        shown = _screen(app)
        assert "x[bold]y[@click=app.quit]z.gguf" in shown and raw_controls(shown) == []
    assert app.return_value is None


async def test_the_guard_drops_a_control_a_view_forgot() -> None:
    """The last guard (``DropControls``): a widget given raw ESC and 8-bit CSI draws neither."""
    from rich.text import Text
    from textual.widgets import Static

    from support import ASSETS

    app = make_app(ASSETS / "ggml-vocab-phi-3.gguf", text="hi")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await app.screen.mount(Static(Text("left\x1b]2;PWNED\x07right\x9b7m\x85end"), id="forgot"))
        await settle(app, pilot)
        shown = _screen(app)
        assert raw_controls(shown) == [] and "left]2;PWNEDright7mend" in shown
