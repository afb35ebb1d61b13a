"""The explorer on a file whose chat template is hostile: the background lint and the Chat view (F5)
end with a one-line template error within the deadline, F6 lists it, the app keeps running, and a
render never holds the session lock the Tokenize view waits on."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from textual.widgets import Static
from ui_support import make_app, settle

from hostile_templates import DEADLINE, HOSTILE, SLACK
from lint_support import broken
from tui_tok.explore.chat.render import ChatTemplateError
from tui_tok.ui.screens.chat import ChatScreen
from tui_tok.ui.screens.diagnostics import DiagnosticsScreen

ASSET = "ggml-vocab-phi-3.gguf"
SIZE = (120, 36)


def _model(tmp_path: Path, name: str) -> Path:
    return broken(tmp_path, ASSET, tokenizer__chat_template=HOSTILE[name][0])


@pytest.mark.parametrize("name", ["nested-loops", "str-times-huge", "nested-parens"])
async def test_f5_and_f6_show_the_error_and_the_app_keeps_running(tmp_path: Path, name: str) -> None:
    reason = HOSTILE[name][1]
    app = make_app(_model(tmp_path, name))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)  # the background lint rendered the template too
        report = app.lint_report
        assert report is not None and not report.internal_errors
        assert [f for f in report.findings if f.code == "template-error" and reason in f.message]
        start = time.perf_counter()
        await pilot.press("f5")
        await settle(app, pilot)
        chat = app.screen
        assert isinstance(chat, ChatScreen)
        assert time.perf_counter() - start < DEADLINE + SLACK + 2
        assert isinstance(chat.error, ChatTemplateError) and reason in str(chat.error) and "\n" not in str(chat.error)
        shown = chat.query_one("#chat-error", Static).render()
        assert reason in str(shown)
        await pilot.press("f6")
        await settle(app, pilot)
        diagnostics = app.screen
        assert isinstance(diagnostics, DiagnosticsScreen)
        assert any(f.code == "template-error" for f in diagnostics.findings)
        assert app.is_running and app.return_code is None


async def test_a_slow_render_does_not_hold_the_session_lock(tmp_path: Path) -> None:
    app = make_app(_model(tmp_path, "nested-loops"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.switch_mode("chat")  # as F5 does; Pilot's press would wait for the busy render to end
        await asyncio.sleep(0.5)
        chat = app.screen
        assert isinstance(chat, ChatScreen) and chat.error is None  # still rendering
        assert app.session.lock.acquire(timeout=0.3), "the render holds the session lock"
        app.session.lock.release()
        await settle(app, pilot)
        assert chat.error is not None and "exceeded" in str(chat.error)
