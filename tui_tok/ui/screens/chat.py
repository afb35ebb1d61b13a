"""The Chat view: edit a conversation and see the prompt the model's chat template makes of it.

The conversation (``ChatMessages``), the template (default or named), add_generation_prompt, extra
variables and an optional tools list are rendered and tokenized as llama.cpp's chat code does
(``explore.chat.prompt.chat_prompt``) in an exclusive worker after each edit, never on the keystroke itself,
one at a time, without the session lock (only each tokenizer call holds it; each render is within
the template deadline); a result older than the newest request is dropped, and requests made
while a render runs skip to the newest. The prompt's tokens are coloured as in the Tokenize
view (special tokens stand out), each message's border says where its tokens start and how many there
are, a table lists them with injections (special-token text typed in a message), and a template error
shows its line, column and the source around it. The runtime selector picks who renders
(llama-server as llama.cpp does, or transformers); a line says where the other runtime's prompt
differs, the next the prompt's tokens against the model's context and how much of each of the last
assistant turns llama-server's KV cache can reuse in the next request (``explore.chat.reuse``,
computed in the same worker).

The bar (``widgets/chat_bar.py``) holds what a request sets: thinking, reasoning_effort, continue the
last message, add_generation_prompt and the template variables, passed as ``tui-tok chat`` passes them
(``explore.chat.controls``). Templates: the file's, files loaded with ctrl+l (``template_dialog.py``),
and ``(edited)``: ctrl+s puts the current template's source in an editor in the conversation's place,
and an edit becomes the ``(edited)`` template, rendered by the same worker (the file's own templates
are never changed). A file without a template offers ``(none)``: llama-server renders ChatML then, as
llama.cpp does; transformers refuses, and a template can be loaded or typed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Select, Static, TextArea
from textual.worker import get_current_worker

from tui_tok.errors import TuiTokError
from tui_tok.explore.chat.llama_server.differ import describe, with_other_runtime
from tui_tok.explore.chat.locked import Locked
from tui_tok.explore.chat.prompt import ChatPrompt
from tui_tok.explore.chat.render import ChatTemplateError
from tui_tok.explore.chat.reuse import budget, context_length, describe_reuse, prefix_reuse, tools_count
from tui_tok.explore.chat.variables import ChatInputError, parse_variables, split_variables
from tui_tok.explore.display import display_bytes
from tui_tok.explore.layout import TokenLayout, kind_codes, layout_tokens
from tui_tok.explore.visible import visible
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.ui.screens.chat_render import ChatRequest, parse_tools, render_request
from tui_tok.ui.screens.chat_templates import TemplateScreen
from tui_tok.ui.session_io import apply_pending_chat
from tui_tok.ui.widgets.chat_bar import ChatBar
from tui_tok.ui.widgets.chat_messages import ChatMessages
from tui_tok.ui.widgets.chat_source import TemplateEditor
from tui_tok.ui.widgets.chat_spans import MessageSpans
from tui_tok.ui.widgets.check_box import CheckBox
from tui_tok.ui.widgets.editor import Editor
from tui_tok.ui.widgets.footer import Footer  # fitted to the width: F1-F9 at 80 columns
from tui_tok.ui.widgets.id_strip import IdStrip
from tui_tok.ui.widgets.info_bar import InfoBar
from tui_tok.ui.widgets.readout import Readout
from tui_tok.ui.widgets.token_view import TokenView

SAMPLE_CONVERSATION = (
    ("system", "You are a helpful assistant."),
    ("user", "What is 2+2?"),
    ("assistant", "4."),
    ("user", "Thanks! And in 日本語? 🙂"),
)
"""What the Chat view shows first."""


class ChatScreen(TemplateScreen):
    """Conversation in, prompt tokens out."""

    VIEW = "Chat"
    BINDINGS = [
        Binding("ctrl+n", "add_message", "Add"),
        Binding("ctrl+o", "remove_message", "Remove"),
        Binding("ctrl+z", "restore_message", "Undo remove", show=False, priority=True),
        Binding("ctrl+t", "add_tool_call", "Tool call", show=False),
        Binding("alt+up", "move_message(-1)", "Move up", show=False),
        Binding("alt+down", "move_message(1)", "Move down", show=False),
        Binding("ctrl+r", "cycle_role", "Role"),
        Binding("ctrl+g", "toggle_generation_prompt", "Gen. prompt", show=False),
        Binding("ctrl+s", "show_source", "Template"),
        Binding("ctrl+l", "load_template", "Load…"),
        Binding("escape", "focus_tokens", "To tokens", show=False),
    ]

    @dataclass
    class Rendered(Message):
        """A worker rendered and tokenized request ``generation`` (or failed: ``error``)."""

        generation: int
        prompt: ChatPrompt | None
        layout: TokenLayout | None
        seconds: float
        error: TuiTokError | None = None
        differ: dict[str, Any] | None = None
        """Where the other runtime's prompt differs (``differ.runtimes_differ``)."""
        reuse: str = ""
        """The budget and KV-cache prefix reuse line (``reuse.describe_reuse``)."""

    def __init__(self) -> None:
        super().__init__()
        self._generation = 0
        self._render_lock = threading.Lock()
        self._kinds: tuple[Tokenizer, np.ndarray] | None = None
        self.prompt: ChatPrompt | None = None
        """The prompt shown (tests read it)."""

    def compose(self) -> ComposeResult:
        yield InfoBar(self.facts(), self.VIEW)
        yield ChatBar(self.templates, id="chat-bar")
        with Horizontal(id="chat-main"):
            with Vertical(id="chat-left"):
                yield ChatMessages(SAMPLE_CONVERSATION, id="chat-messages")
                # exact, its keys in order as in the messages (widgets/editor.py); Tab moves on
                yield Editor("", id="chat-tools", soft_wrap=True, tab_behavior="focus")
                yield TemplateEditor(on_edit=self._source_edited, id="chat-source")
            with Vertical(id="chat-right"):
                yield Static("", id="chat-error")
                yield TokenView(id="chat-view")
                yield IdStrip(id="chat-ids")
                yield MessageSpans(id="chat-spans")
                yield Static("", id="chat-differ")
                yield Static("", id="chat-reuse")
                yield Readout("", id="chat-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#chat-tools", TextArea).border_title = "tools (JSON list, optional)"
        self.query_one("#chat-view", TokenView).border_title = "Prompt tokens"
        self.query_one(
            "#chat-messages", ChatMessages
        ).border_title = "Conversation  ^N add · ^O remove · ^Z undo · ^T tool call · ^R role · Alt+↑↓ move"
        self.watch(self.app, "tokenizer", self._tokenizer_changed)
        self.call_after_refresh(self.focus_conversation, True)
        for note in apply_pending_chat(self):  # the conversation of a loaded session
            self.notify(visible(note), severity="warning", markup=False)

    def focus_conversation(self, last: bool = False) -> None:
        """Focus the message the keys act on (``last``: the last message)."""
        box = self.query_one("#chat-messages", ChatMessages)
        editors = box.editors
        if editors:
            editors[-1 if last or not 0 <= box.current < len(editors) else box.current].focus()

    def _tokenizer_changed(self, _value: object = None) -> None:
        self.rerender()

    # --- what the user edits ------------------------------------------------------------------

    @on(ChatMessages.Changed)
    @on(Input.Changed, "#chat-vars")
    @on(TextArea.Changed, "#chat-tools")
    @on(CheckBox.Changed, "#chat-bar CheckBox")
    @on(Select.Changed, "#chat-bar Select")
    def _edited(self) -> None:
        self.rerender()

    def action_add_message(self) -> None:
        self.query_one("#chat-messages", ChatMessages).add()

    async def action_remove_message(self) -> None:
        if what := await self.query_one("#chat-messages", ChatMessages).remove_current():
            self.notify(f"Removed {what} · ctrl+z restores it", markup=False)

    async def action_restore_message(self) -> None:
        """ctrl+z: the removed message (or call) back, when a removal is the latest edit or no text
        box has focus; otherwise the focused box's own undo (a priority binding that skips)."""
        chat = self.query_one("#chat-messages", ChatMessages)
        if not chat.removed or (chat.undo_ready == 0 and isinstance(self.focused, (TextArea, Input))):
            raise SkipAction()
        if what := await chat.restore():
            self.notify(f"Restored {what}", markup=False)

    async def action_add_tool_call(self) -> None:
        if not await self.query_one("#chat-messages", ChatMessages).add_call():
            self.notify("Tool calls belong to assistant messages: ctrl+r changes the role", severity="warning")

    @on(Input.Changed, "#chat-vars")
    @on(TextArea.Changed, "#chat-tools")
    def _typed_outside_messages(self) -> None:
        self.query_one("#chat-messages", ChatMessages).undo_ready = 0  # ctrl+z: the box's own undo now

    def action_move_message(self, delta: int) -> None:
        self.query_one("#chat-messages", ChatMessages).move(delta)

    def action_cycle_role(self) -> None:
        self.query_one("#chat-messages", ChatMessages).cycle_role()

    def action_toggle_generation_prompt(self) -> None:
        box = self.query_one("#chat-agp", CheckBox)
        box.value = not box.value

    def action_toggle_continue(self) -> None:
        box = self.query_one("#chat-continue", CheckBox)
        box.value = not box.value

    def action_cycle(self, select_id: str) -> None:
        """Choose the next option of the bar's ``select_id`` (thinking, reasoning effort, runtime)."""
        self.query_one(ChatBar).cycle(select_id)

    def action_focus_tokens(self) -> None:
        self.query_one("#chat-view", TokenView).focus()

    # --- rendering ----------------------------------------------------------------------------

    def rerender(self) -> None:
        """Render the current conversation in a worker (the newest request wins)."""
        if not self.is_mounted:
            return
        self._generation += 1
        if self.tui.tokenizer is None:
            self.query_one("#chat-status", Readout).show("waiting for the tokenizer…")
            return
        try:
            messages = self.query_one("#chat-messages", ChatMessages).messages()
        except ChatInputError as exc:  # a tool call's arguments that are not JSON
            self.post_message(self.Rendered(self._generation, None, None, 0.0, exc))
            return
        bar = self.query_one(ChatBar).choices()
        self._build_prompt(ChatRequest(
            generation=self._generation,
            template=self.templates.get(bar.template, ""),
            messages=messages,
            add_generation_prompt=bar.add_generation_prompt,
            variables=bar.variables,
            tools=self.query_one("#chat-tools", TextArea).text,
            runtime=bar.runtime,
            tool_use=self.tool_use_template,
            thinking=bar.thinking,
            reasoning_effort=bar.reasoning_effort,
            continue_final_message=bar.continue_final_message,
        ))  # fmt: skip

    @work(thread=True, exclusive=True, group="chat", description="rendering the chat template")
    def _build_prompt(self, request: ChatRequest) -> None:
        worker = get_current_worker()
        tok = self.tui.tokenizer
        if tok is None:
            return
        start = time.perf_counter()
        try:
            extra = parse_variables(split_variables(request.variables))
            tools = parse_tools(request.tools)
            # one render at a time (a thread cannot be stopped early): requests made meanwhile wait
            # here, and all but the newest give up
            with self._render_lock:
                if worker.is_cancelled or request.generation != self._generation:
                    return
                # the session lock around each tokenizer call only: the Tokenize view never waits
                # for a render (each within the template deadline, which never interrupts the tokenizer)
                locked = cast(Tokenizer, Locked(tok, self.session.lock))

                def build(runtime: str) -> ChatPrompt:  # the other runtime's render only for the difference
                    return render_request(locked, request, request.messages, runtime, tools, extra,
                                        locate=runtime == request.runtime)  # fmt: skip

                prompt, differ = with_other_runtime(build, request.runtime)
                reuse = self._reuse_line(locked, request, prompt, tools, extra)
            with self.session.lock:
                layout = layout_tokens(prompt.text, prompt.tokens, kinds_by_id=self._kinds_by_id(tok))
        except TuiTokError as exc:
            self.post_message(self.Rendered(request.generation, None, None, 0.0, exc))
            return
        except Exception as exc:  # a bug in tui-tok: say so in the view, keep the app
            error = TuiTokError(f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
            self.post_message(self.Rendered(request.generation, None, None, 0.0, error))
            return
        if not worker.is_cancelled:
            self.post_message(self.Rendered(request.generation, prompt, layout, time.perf_counter() - start, differ=differ,
                                           reuse=reuse))  # fmt: skip

    def _reuse_line(self, tok: Tokenizer, request: ChatRequest, prompt: ChatPrompt, tools: list[Any] | None,
                    extra: dict[str, object]) -> str:  # fmt: skip
        """The budget and the last ``MAX_TURNS`` turns' prefix reuse: about two renders per turn, plus
        one without the tools to count theirs; a refusal there is a turn's ✗, never the view's error."""

        def build(msgs: Any, agp: bool, with_tools: list[Any] | None = tools) -> ChatPrompt:
            return render_request(tok, request, msgs, request.runtime, with_tools, extra, agp=agp, turn=True)

        def without_tools() -> ChatPrompt:
            return render_request(tok, request, request.messages, request.runtime, None, extra)

        tools_tokens, method = tools_count(without_tools, prompt, tools)
        record = budget(prompt, context_length(self.session.metadata), tools_tokens, method)
        worker = get_current_worker()

        def stale() -> bool:  # a newer request: its render supersedes this one
            return worker.is_cancelled or request.generation != self._generation

        return describe_reuse(prefix_reuse(tok, request.messages, build, cancelled=stale), record)

    def _kinds_by_id(self, tok: Tokenizer) -> np.ndarray:
        if self._kinds is None or self._kinds[0] is not tok:
            self._kinds = (tok, kind_codes(tok.token_kinds()))
        return self._kinds[1]

    def on_chat_screen_rendered(self, message: Rendered) -> None:
        if message.generation != self._generation:
            return  # stale: something changed since
        if message.prompt is None or message.layout is None:
            self.error = message.error
            self.prompt = None
            self._show_error(_error_text(message.error))
            return
        self.error = None
        self.prompt = prompt = message.prompt
        self.set_class(False, "-error")
        layout = message.layout
        self.query_one("#chat-view", TokenView).show(layout)
        self.query_one("#chat-ids", IdStrip).show(layout.ids, layout.kinds, phases=layout.phases)
        self.query_one("#chat-spans", MessageSpans).show(prompt)
        self._annotate_messages(prompt)
        self.query_one("#chat-differ", Static).update(Text(describe(message.differ, prompt.runtime)))
        self.query_one("#chat-reuse", Static).update(Text(visible(message.reuse)))
        timing = f" · {message.seconds * 1000:.1f} ms" if self.tui.show_timings else ""
        warn = f" · ⚠ {len(prompt.injections)} special token(s) typed in messages" if prompt.injections else ""
        self.query_one("#chat-status", Readout).show(
            f"{len(prompt.tokens)} tokens · {len(prompt.text):,} characters{warn}{timing}"
        )

    def _annotate_messages(self, prompt: ChatPrompt) -> None:
        injected = {i.message for i in prompt.injections}
        editors = self.query_one("#chat-messages", ChatMessages).editors
        for span, editor in zip(prompt.messages, editors):
            where = (
                f"tokens {span.token_start}–{span.token_start + span.token_count - 1}"
                if span.token_count
                else "no tokens"
            )
            editor.border_subtitle = f"{where} · {span.token_count}" + (
                " · ⚠ special token typed" if span.index in injected else ""
            )
            editor.set_class(span.index in injected, "-injected")

    def _show_error(self, text: str) -> None:
        self.set_class(True, "-error")
        for editor in self.query_one("#chat-messages", ChatMessages).editors:
            editor.border_subtitle = ""  # the spans of the last good render no longer hold
        self.query_one("#chat-error", Static).update(Text(visible(text, lines=True)))
        self.query_one("#chat-status", Readout).show("the template did not render")

    @on(IdStrip.Clicked)
    def _id_clicked(self, event: IdStrip.Clicked) -> None:
        self.query_one("#chat-view", TokenView).cursor = event.index  # posts Selected: the strip follows

    @on(TokenView.Selected, "#chat-view")
    def _token_selected(self, event: TokenView.Selected) -> None:
        self.query_one("#chat-ids", IdStrip).cursor = event.index
        tok, prompt = self.tui.tokenizer, self.prompt
        if tok is None or prompt is None or not 0 <= event.index < len(prompt.tokens):
            return
        token = prompt.tokens[event.index]
        owner = next((s for s in prompt.messages if s.token_start <= event.index < s.token_start + s.token_count), None)
        where = f"message {owner.index} ({owner.role})" if owner else "generation prompt"
        piece = display_bytes(tok.token_to_piece(token.id)) if token.id >= 0 else "∅"
        self.query_one("#chat-status", Readout).show(
            f"token {event.index}: id {token.id} {piece!r} {token.kind.value} · {where}"
        )

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Chat: add a message", "ctrl+n", self.action_add_message)
        yield SystemCommand("Chat: remove the message (or the focused tool call)", "ctrl+o", self.action_remove_message)
        yield SystemCommand("Chat: restore the removed message", "ctrl+z", self._restore_any)
        yield SystemCommand("Chat: add a tool call to the assistant message", "ctrl+t", self.action_add_tool_call)
        yield SystemCommand("Chat: change the message's role", "ctrl+r", self.action_cycle_role)
        yield SystemCommand("Chat: toggle add_generation_prompt", "ctrl+g", self.action_toggle_generation_prompt)
        yield SystemCommand("Chat: edit the template (show its source / the conversation again)", "ctrl+s",
                            self.action_show_source)  # fmt: skip
        yield SystemCommand("Chat: load a template file…", "ctrl+l", self.action_load_template)
        yield SystemCommand("Chat: thinking auto / on / off (next)", "enable_thinking of the request",
                            lambda: self.action_cycle("chat-thinking"))  # fmt: skip
        yield SystemCommand("Chat: reasoning effort (next level)", "reasoning_effort of the request",
                            lambda: self.action_cycle("chat-effort"))  # fmt: skip
        yield SystemCommand("Chat: continue the last message on/off", "continue_final_message (no generation prompt)",
                            self.action_toggle_continue)  # fmt: skip
        yield SystemCommand("Chat: runtime llama-server / transformers (next)", "who renders the template",
                            lambda: self.action_cycle("chat-runtime"))  # fmt: skip

    async def _restore_any(self) -> None:
        if what := await self.query_one("#chat-messages", ChatMessages).restore():
            self.notify(f"Restored {what}", markup=False)
        else:
            self.notify("No removed message to restore", severity="warning")


def _error_text(error: TuiTokError | None) -> str:
    if isinstance(error, ChatTemplateError):
        tail = f"\n\n{error.context}" if error.context else ""
        return f"{error}{tail}\n\nCtrl+S edits the template (the file's own stays as it is)."
    return str(error) if error is not None else "unknown error"
