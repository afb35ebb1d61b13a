"""The Chat view's templates: a template file loaded (ctrl+t), a template edited in the view
re-rendering live, the request controls (thinking, reasoning_effort, continue), and the prompt
pane after a failing template."""

from __future__ import annotations

from pathlib import Path

from lint_support import broken
from support import ASSETS
from textual.widgets import Select
from ui_support import make_app, settle

from tui_tok.ui.screens.chat import ChatScreen
from tui_tok.ui.widgets.token_view import TokenView

QWEN3 = ASSETS / "qwen3-vocab.gguf"
SIZE = (120, 40)
PLAIN = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
"""A small template that renders any conversation."""


async def _open(app, pilot) -> ChatScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("f5")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ChatScreen)
    return screen


async def test_prompt_pane_is_drawn_after_a_failing_template(tmp_path: Path) -> None:
    """The token view, hidden while the error shows, kept the empty size it measured then: switching
    to a template that renders left the Prompt tokens pane blank."""
    path = broken(tmp_path, "qwen3-vocab.gguf", tokenizer__chat_template="{{ raise_exception('no') }}",
                  tokenizer__chat_templates=["ok"], tokenizer__chat_template__ok=PLAIN)  # fmt: skip
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        assert screen.has_class("-error") and screen.prompt is None
        screen.query_one("#chat-template", Select).value = "ok"
        await settle(app, pilot)
        assert screen.prompt is not None and not screen.has_class("-error")
        view = screen.query_one("#chat-view", TokenView)
        assert view.content_box.width == view.size.width > 0
        first = view.render_line(0).text
        assert first.startswith("<|im_start|>system↵"), first
