"""Pilot tests of "Fix…" (ctrl+e) in the diagnostics view: the dialog shows the finding's change and
its --override-kv form, writes the repaired copy (tensor data unchanged) to the path typed, lints
it, refuses to overwrite, and says so when a finding has no fix."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Static
from ui_support import make_app, settle

from fix_support import tensor_hashes, with_tensors
from lint_support import asset_metadata
from tui_tok.gguf import read_gguf
from tui_tok.ui.screens.diagnostics import DiagnosticsScreen
from tui_tok.ui.screens.fix_dialog import FixDialog

SIZE = (120, 40)


def gpt2_default(tmp_path):  # type: ignore[no-untyped-def]
    """GPT-2 with tokenizer.ggml.pre 'default' (pre-default, fixable) and real tensors."""
    meta = dict(asset_metadata("ggml-vocab-gpt-2.gguf"))
    meta["tokenizer.ggml.pre"] = "default"
    return with_tensors(tmp_path / "gpt2.gguf", meta)


async def _diagnostics(app, pilot, code: str) -> DiagnosticsScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("f6")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, DiagnosticsScreen)
    row = next(i for i, f in enumerate(screen.findings) if f.code == code)
    screen.query_one("#diag-table", DataTable).move_cursor(row=row)
    await pilot.pause()
    return screen


async def test_fix_writes_the_repaired_copy(tmp_path) -> None:
    src = gpt2_default(tmp_path)
    out = tmp_path / "repaired.gguf"
    app = make_app(src)
    async with app.run_test(size=SIZE) as pilot:
        await _diagnostics(app, pilot, "pre-default")
        await pilot.press("ctrl+e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, FixDialog)
        change = str(dialog.query_one("#fix-change", Static).render())
        assert "set tokenizer.ggml.pre (string): 'default' -> 'gpt-2'" in change
        assert "--override-kv tokenizer.ggml.pre=str:gpt-2" in change
        assert dialog.query_one("#fix-path", Input).value == str(tmp_path / "gpt2.fixed.gguf")
        dialog.query_one("#fix-path", Input).value = str(out)
        await pilot.press("enter")
        await settle(app, pilot)
        status = str(dialog.query_one("#fix-status", Static).render())
        assert f"wrote {out}" in status and "fixed pre-default" in status
        assert read_gguf(out)["tokenizer.ggml.pre"] == "gpt-2"
        assert tensor_hashes(out) == tensor_hashes(src)
        await pilot.press("enter")  # again: the copy exists now
        await settle(app, pilot)
        assert "already exists" in str(dialog.query_one("#fix-status", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DiagnosticsScreen)


async def test_a_finding_without_fix_says_so(tmp_path) -> None:
    from support import ASSETS

    app = make_app(ASSETS / "ggml-vocab-phi-3.gguf")  # bos-text-dropped: nothing in the metadata to repair
    async with app.run_test(size=SIZE) as pilot:
        await _diagnostics(app, pilot, "bos-text-dropped")
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert isinstance(app.screen, DiagnosticsScreen)
        assert any("no metadata edit repairs bos-text-dropped" in str(n.message) for n in app._notifications)


async def test_escape_stops_a_copy_under_way(tmp_path, monkeypatch) -> None:
    import time

    from tui_tok.ui.screens import fix_dialog

    def slow_copy(gguf, edits, out, *, progress):  # type: ignore[no-untyped-def]
        for i in range(200):  # the real rewrite calls progress after each chunk the same way
            progress(i, 200)
            time.sleep(0.02)
        raise AssertionError("not stopped")

    monkeypatch.setattr(fix_dialog, "apply_edits", slow_copy)
    app = make_app(gpt2_default(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await _diagnostics(app, pilot, "pre-default")
        await pilot.press("ctrl+e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, FixDialog)
        await pilot.press("enter")
        await pilot.pause(0.3)
        await pilot.press("escape")
        await settle(app, pilot)
        assert str(dialog.query_one("#fix-status", Static).render()) == "stopped: nothing was written"
        assert app.screen is dialog  # stopping does not close it
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DiagnosticsScreen)
