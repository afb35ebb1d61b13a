"""Diagnostics and Chat say the same about phi-3's BOS (issue 27): its template writes ``<s>``, the
vocab adds BOS, and llama-server (common/chat.cpp) drops that text: the model sees one BOS."""

from __future__ import annotations

from textual.widgets import DataTable
from ui_support import make_app, settle

from support import ASSETS
from tui_tok.ui.screens.chat import ChatScreen
from tui_tok.ui.screens.diagnostics import DiagnosticsScreen
from tui_tok.ui.widgets.chat_spans import MessageSpans


async def test_phi3_one_bos_in_diagnostics_and_chat() -> None:
    app = make_app(ASSETS / "ggml-vocab-phi-3.gguf")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f6")
        await settle(app, pilot)
        diagnostics = app.screen
        assert isinstance(diagnostics, DiagnosticsScreen)
        said = [f.message for f in diagnostics.findings if "BOS" in f.message]
        assert len(said) == 1 and "one BOS token" in said[0] and "two BOS" not in said[0], said
        assert diagnostics.query_one("#diag-table", DataTable).row_count == len(diagnostics.findings)
        await pilot.press("f5")
        await settle(app, pilot)
        chat = app.screen
        assert isinstance(chat, ChatScreen) and chat.prompt is not None and app.tokenizer is not None
        bos = app.tokenizer.vocab.bos_id
        ids = chat.prompt.ids
        assert ids[0] == bos and ids[1] != bos and chat.prompt.dropped_bos
        assert "BOS text dropped" in chat.query_one("#chat-spans", MessageSpans).get_row("total")[4].plain
