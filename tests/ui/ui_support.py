"""Helpers for driving the explorer headless."""

from __future__ import annotations

from pathlib import Path

from tui_tok.ui.app import TuiTokApp


def make_app(path: Path | str, *, text: str = "") -> TuiTokApp:
    from tui_tok import read_gguf

    return TuiTokApp(read_gguf(path), text=text, show_timings=False)


async def settle(app: TuiTokApp, pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait until every worker has finished and its messages are handled."""
    for _ in range(3):
        await app.workers.wait_for_complete()
        await pilot.pause()


async def answer_path_prompt(app: TuiTokApp, pilot, key: str, path: Path) -> None:  # type: ignore[no-untyped-def]
    """Press ``key`` (alt+s, alt+l ...), type ``path`` into the path prompt it opens, Enter."""
    from textual.widgets import Input

    from tui_tok.ui.screens.session_io import PathPrompt

    await pilot.press(key)
    await pilot.pause()
    assert isinstance(app.screen, PathPrompt)
    app.screen.query_one(Input).value = str(path)
    await pilot.press("enter")
    await settle(app, pilot)
