"""The Chat view's runtime selector: llama-server by default, transformers on request, and the line
saying where the other runtime's prompt differs."""

from __future__ import annotations

from textual.widgets import Select, Static
from ui_support import make_app, settle

from support import ASSETS
from tui_tok.ui.screens.chat import ChatScreen

PHI3 = ASSETS / "ggml-vocab-phi-3.gguf"
QWEN3 = ASSETS / "qwen3-vocab.gguf"
SIZE = (130, 40)


async def test_runtime_selector_and_difference_line() -> None:
    app = make_app(PHI3)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f5")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen) and screen.prompt is not None
        # phi-3 has no system role: llama-server folds the system message into the first user message
        assert screen.prompt.runtime == "llama-server"
        assert screen.prompt.text.startswith("<|user|>\nYou are a helpful assistant.\nWhat is 2+2?<|end|>")
        line = str(screen.query_one("#chat-differ", Static).render())
        assert line == "≠ transformers from char 9 (token 2): 'You are a…' vs 'What is 2…'"
        screen.query_one("#chat-runtime", Select).value = "transformers"
        await settle(app, pilot)
        assert screen.prompt.runtime == "transformers"
        assert screen.prompt.text.startswith("<|user|>\nWhat is 2+2?<|end|>")  # transformers drops it
        line = str(screen.query_one("#chat-differ", Static).render())
        assert line == "≠ llama-server from char 9 (token 2): 'What is 2…' vs 'You are a…'"


async def test_budget_and_prefix_reuse_line() -> None:
    app = make_app(PHI3)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f5")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen) and screen.prompt is not None
        line = str(screen.query_one("#chat-reuse", Static).render())
        # phi-3 re-renders the assistant turn as the model wrote it: the whole cache is reused
        assert line == f"{len(screen.prompt.tokens)}/4096 ctx · KV: all 1 turns reused"
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f5")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen) and screen.prompt is not None
        line = str(screen.query_one("#chat-reuse", Static).render())
        # Qwen3 writes an empty <think> block in the turn the model just answered, none in history
        assert (
            line == f"{len(screen.prompt.tokens)}/? ctx · KV: 1/1 turns break · #2 26/34: '<think>\\n…' ≠ '4.<|im_e…'"
        )
