"""Pilot tests and a snapshot of the Chat view (F5): edits re-render, ids are the tokenizer's,
message spans, injections, template errors shown with their context, the template source."""

from __future__ import annotations

import pytest
from textual.widgets import Checkbox, Input, Select, Static, TextArea
from ui_support import make_app, settle

from support import ASSETS, HAVE_SHARED, SHARED, SHARED_MISSING
from tui_tok.explore.chat.render import render_chat, templates_of
from tui_tok.ui.screens.chat import SAMPLE_CONVERSATION, ChatScreen
from tui_tok.ui.widgets.chat_messages import ChatMessages
from tui_tok.ui.widgets.chat_source import TemplateEditor
from tui_tok.ui.widgets.chat_spans import MessageSpans

QWEN3 = ASSETS / "qwen3-vocab.gguf"
SIZE = (130, 40)


async def _open(app, pilot) -> ChatScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("f5")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ChatScreen)
    return screen


def _messages(screen: ChatScreen) -> ChatMessages:
    return screen.query_one("#chat-messages", ChatMessages)


async def test_sample_conversation_renders_and_ids_are_the_tokenizers() -> None:
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        prompt = screen.prompt
        assert prompt is not None and app.tokenizer is not None
        template = templates_of(app.session.metadata)["default"]
        messages = [{"role": r, "content": c} for r, c in SAMPLE_CONVERSATION]
        assert prompt.rendered == render_chat(template, messages, bos_token="", eos_token="<|im_end|>")
        assert prompt.ids == app.tokenizer.encode(prompt.text, add_special=True, parse_special=True)
        # each message's border says where its tokens are; the table agrees; the total is the id count
        editors = _messages(screen).editors
        for span, editor in zip(prompt.messages, editors):
            assert editor.border_subtitle.startswith(
                f"tokens {span.token_start}–{span.token_start + span.token_count - 1}"
            )
        table = screen.query_one("#chat-spans", MessageSpans)
        assert table.get_row("total")[3].plain == str(len(prompt.ids))
        assert table.get_row("generation")[2].plain == str(prompt.generation_start)


async def test_typing_in_a_message_re_renders_and_flags_injection() -> None:
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        before = len(screen.prompt.ids)  # type: ignore[union-attr]
        editor = _messages(screen).editors[-1]
        editor.focus()
        await pilot.press("end", *"<|im_end|>")
        await settle(app, pilot)
        prompt = screen.prompt
        assert prompt is not None
        assert editor.text.endswith("🙂<|im_end|>")
        assert len(prompt.ids) == before + 1  # the typed text is one token: the special one
        assert [(i.message, i.text) for i in prompt.injections] == [(3, "<|im_end|>")]
        assert editor.has_class("-injected") and "special token typed" in str(editor.border_subtitle)
        assert "⚠" in screen.query_one("#chat-spans", MessageSpans).get_row("3")[4].plain


async def test_add_remove_move_and_role() -> None:
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        chat = _messages(screen)
        chat.editors[1].focus()
        await pilot.press("ctrl+n")  # after the user message: an assistant message
        await settle(app, pilot)
        assert [m["role"] for m in chat.messages()] == ["system", "user", "assistant", "assistant", "user"]
        await pilot.press(*"ok")
        await pilot.press("ctrl+r", "ctrl+r")  # assistant -> tool -> system
        await settle(app, pilot)
        assert chat.messages()[2] == {"role": "system", "content": "ok"}
        assert "<|im_start|>system\nok<|im_end|>" in screen.prompt.rendered  # type: ignore[union-attr]
        await pilot.press("alt+up")
        await settle(app, pilot)
        assert [m["content"] for m in chat.messages()][:3] == ["You are a helpful assistant.", "ok", "What is 2+2?"]
        await pilot.press("ctrl+o")
        await settle(app, pilot)
        assert [m["role"] for m in chat.messages()] == ["system", "user", "assistant", "user"]
        assert len(screen.prompt.messages) == 4  # type: ignore[union-attr]


async def test_generation_prompt_variables_and_tools() -> None:
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        assert screen.prompt is not None and screen.prompt.rendered.endswith("<|im_start|>assistant\n")
        screen.query_one("#chat-vars", Input).value = "enable_thinking=false"
        await settle(app, pilot)
        assert screen.prompt.rendered.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
        await pilot.press("ctrl+g")
        await settle(app, pilot)
        assert not screen.query_one("#chat-agp", Checkbox).value
        assert screen.prompt.rendered.endswith("🙂<|im_end|>\n")
        screen.query_one("#chat-tools", TextArea).text = '[{"type": "function", "function": {"name": "zap"}}]'
        await settle(app, pilot)
        assert "# Tools" in screen.prompt.rendered and '"function": {"name": "zap"' in screen.prompt.rendered
        screen.query_one("#chat-tools", TextArea).text = "[nope"
        await settle(app, pilot)
        assert screen.has_class("-error") and "tools: not JSON" in str(screen.query_one("#chat-error", Static).render())


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
async def test_template_error_shows_line_and_context_then_source() -> None:
    """Command-R's default template raises when roles do not alternate."""
    app = make_app(SHARED / "vocabs" / "ggml-vocab-command-r.gguf")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        assert [o for o in screen.templates] == ["default", "tool_use", "rag"]
        chat = _messages(screen)
        chat.editors[2].focus()
        await pilot.press("ctrl+r", "ctrl+r", "ctrl+r")  # assistant -> tool -> system -> user: two user turns in a row
        await settle(app, pilot)
        shown = str(screen.query_one("#chat-error", Static).render())
        assert screen.has_class("-error") and screen.error is not None
        assert shown.startswith("template line 1, column") and "Conversation roles must alternate" in shown
        assert ">1 | " in shown and "^" in shown and "Traceback" not in shown
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert screen.has_class("-source")
        area = screen.query_one("#chat-source", TemplateEditor)
        assert area.text == screen.templates["default"] and area.cursor_location[0] == 0
        await pilot.press("ctrl+s")  # the conversation again
        await pilot.press("ctrl+r")  # user -> assistant: renderable again
        await settle(app, pilot)
        assert not screen.has_class("-error") and screen.prompt is not None
        screen.query_one("#chat-template", Select).value = "rag"
        await settle(app, pilot)
        # llama-server renders rag without documents (its for loop over undefined runs zero times) ...
        assert not screen.has_class("-error") and screen.prompt is not None and screen.prompt.runtime == "llama-server"
        differ = str(screen.query_one("#chat-differ", Static).render())
        assert differ.startswith("transformers refuses: template line")
        screen.query_one("#chat-runtime", Select).value = "transformers"
        await settle(app, pilot)
        assert screen.has_class("-error")  # ... transformers does not: a TypeError at its line, still no traceback
        assert "template line" in str(screen.query_one("#chat-error", Static).render())


async def test_file_without_template_renders_chatml_in_llama_server_and_says_so_in_transformers() -> None:
    """llama.cpp renders a file without a template with ChatML; transformers has no fallback."""
    app = make_app(ASSETS / "ggml-vocab-gpt-2.gguf")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        assert list(screen.templates) == ["(none)"] and screen.prompt is not None
        assert screen.prompt.text.startswith("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n")
        assert screen.prompt.text.endswith("<|im_start|>assistant\n")
        assert str(screen.query_one("#chat-differ", Static).render()).startswith(
            "transformers refuses: no chat template"
        )
        screen.query_one("#chat-runtime", Select).value = "transformers"
        await settle(app, pilot)
        assert screen.prompt is None
        assert "no chat template" in str(screen.query_one("#chat-error", Static).render())


def test_chat_view_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """Qwen3's template on the sample conversation with ``<|im_end|>`` typed at the end of the last
    user message: the prompt's tokens coloured, <|im_start|>/<|im_end|> as bold pink special tokens;
    each message's border gives its first token and count; the last message has a red border and
    "⚠ special token typed"; the table lists the four messages (the assistant one ≈ located by
    content), the generation prompt and the total, 48 tokens; the bar's two lines: template default,
    llama-server, thinking auto, effort unset; gen. prompt on, continue last off, the variables box;
    the line under the table "transformers gives the same ids"."""

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot.app, pilot)
        await pilot.press("f5")
        await settle(pilot.app, pilot)
        await pilot.press("end", *"<|im_end|>")
        await settle(pilot.app, pilot)

    assert snap_compare(make_app(QWEN3), terminal_size=SIZE, run_before=run_before)
