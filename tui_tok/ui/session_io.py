"""Reading the explorer's state into a ``SessionState`` and putting one back (``explore/session_file.py``).

The views hold their own inputs (the Tokenize view its toggles, the Chat view its conversation),
and a view exists only once it was first shown. ``collect`` reads the views that exist and takes
the rest from the session the app was opened with; ``apply`` sets the views that exist and leaves
the rest pending (``TuiTokApp.pending_session``): ``apply_pending_tokenize`` and
``apply_pending_chat``, called when those views mount, take their part of it then.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.app import App
from textual.screen import Screen
from textual.widgets import Checkbox, Input, Select, TextArea
from textual.widgets.select import InvalidSelectValueError

from tui_tok.explore.session_file import TOGGLES, ChatState, SessionState


def view_of(app: App[Any], mode: str) -> Screen[Any] | None:
    """The base screen of ``mode`` when it was created (a mode's screen is made when first shown)."""
    try:
        stack = app.get_screen_stack(mode)
    except KeyError:
        return None
    return stack[0] if stack and stack[0].is_mounted else None


def collect(app: App[Any]) -> SessionState:
    """The app's text, toggles, conversation and compare target now."""
    pending: SessionState | None = getattr(app, "pending_session", None)
    tokenize = view_of(app, "tokenize")
    if tokenize is not None:
        toggles = {name: bool(getattr(tokenize, name)) for name in TOGGLES}
    else:
        toggles = dict(pending.toggles) if pending is not None else {}
    chat_view = view_of(app, "chat")
    chat = _chat_state(chat_view) if chat_view is not None else pending.chat if pending is not None else None
    other = getattr(app, "compare_gguf", None)
    compare = getattr(app, "compare_source", None) or (source_name(other) if other is not None else None)
    session = getattr(app, "session", None)
    return SessionState(text=getattr(app, "text"), toggles=toggles, chat=chat, compare=compare,
                        model=source_name(session.gguf) if session is not None else None)  # fmt: skip


def with_conversation(app: App[Any], messages: list[dict[str, Any]], tools: list[Any] | None) -> SessionState:
    """The app's state now with the conversation ``messages`` (and ``tools``, when given) instead."""
    from dataclasses import replace

    from tui_tok.explore.visible import json_dumps

    state = collect(app)
    chat = replace(state.chat, messages=messages) if state.chat is not None else ChatState(messages=messages)
    if tools is not None:
        chat.tools_text = json_dumps(tools, indent=1)  # controls escaped: the tools box shows them
    state.chat = chat
    return state


def apply(app: App[Any], state: SessionState) -> list[str]:
    """Show ``state``: the text now, the views' parts now or when they mount. Returns what could
    not be applied (one line each, for a notification)."""
    notes: list[str] = []
    app.pending_session = state  # type: ignore[attr-defined]
    setattr(app, "text", state.text)
    tokenize = view_of(app, "tokenize")
    if tokenize is not None:
        apply_pending_tokenize(tokenize)
    chat_view = view_of(app, "chat")
    if chat_view is not None:
        notes += apply_pending_chat(chat_view)
    other = getattr(app, "compare_gguf", None)
    if state.compare is not None and (other is None or source_name(other) != state.compare):
        notes.append(f"compare target {state.compare}: open it with --compare (or reopen with --session)")
    return notes


def apply_pending_tokenize(screen: Screen[Any]) -> None:
    """Set the Tokenize view's toggles from the pending session (the text is the app's already)."""
    pending: SessionState | None = getattr(screen.app, "pending_session", None)
    if pending is None:
        return
    for name, value in pending.toggles.items():
        if name in TOGGLES and getattr(screen, name) != value:
            setattr(screen, name, value)
        # the view mirrors a toggle in its check box only once mounted: during on_mount, set it here
        for box in screen.query(f"#cb-{name}").results(Checkbox):
            box.value = value


def apply_pending_chat(screen: Any) -> list[str]:
    """Put the pending session's conversation into the Chat view; returns what was left out."""
    pending: SessionState | None = getattr(screen.app, "pending_session", None)
    if pending is None or pending.chat is None:
        return []
    chat = pending.chat
    notes: list[str] = []
    for name, text in chat.templates.items():  # loaded or edited: offered again under their names
        if name not in screen.file_templates:
            screen.add_template(name, text)
    if chat.template in screen.templates:
        screen.query_one("#chat-template", Select).value = chat.template
    else:
        notes.append(f"chat template {chat.template!r}: this file has no template of that name")
    controls = {
        "chat-runtime": chat.runtime,
        "chat-thinking": chat.thinking,
        "chat-effort": chat.reasoning_effort or "unset",
    }
    for select_id, value in controls.items():
        select = screen.query_one(f"#{select_id}", Select)
        try:
            select.value = value
        except InvalidSelectValueError:
            notes.append(
                f"chat {select_id.removeprefix('chat-')} {value!r}: not a choice of this tui-tok; left as it was"
            )
    screen.query_one("#chat-continue", Checkbox).value = chat.continue_final_message is not None
    screen.query_one("#chat-agp", Checkbox).value = chat.add_generation_prompt
    screen.query_one("#chat-vars", Input).value = chat.variables
    screen.query_one("#chat-tools", TextArea).load_text(chat.tools_text)
    from tui_tok.ui.widgets.chat_messages import ChatMessages

    box = screen.query_one("#chat-messages", ChatMessages)
    boxes, left_out = box.prepare(chat.messages)
    screen.run_worker(box.replace(boxes), group="session-chat", exclusive=True)
    return notes + left_out


def _chat_state(screen: Any) -> ChatState:
    from tui_tok.ui.widgets.chat_messages import ChatMessages

    effort = str(screen.query_one("#chat-effort", Select).value)
    return ChatState(
        messages=screen.query_one("#chat-messages", ChatMessages).messages(strict=False),
        template=screen.template_name,
        add_generation_prompt=screen.query_one("#chat-agp", Checkbox).value,
        variables=screen.query_one("#chat-vars", Input).value,
        tools_text=screen.query_one("#chat-tools", TextArea).text,
        runtime=str(screen.query_one("#chat-runtime", Select).value),
        thinking=str(screen.query_one("#chat-thinking", Select).value),
        reasoning_effort=None if effort == "unset" else effort,
        continue_final_message="auto" if screen.query_one("#chat-continue", Checkbox).value else None,
        templates=screen.added_templates(),
    )


def source_name(gguf: Any) -> str:
    """How to open ``gguf`` again: its URL, or the local file's absolute path (found from elsewhere)."""
    if getattr(gguf, "url", None):
        return str(gguf.url)
    p = Path(str(gguf.path))
    return str(p.resolve()) if p.exists() else str(gguf.path)


def chat_json(prompt: Any) -> str:
    """A rendered chat prompt as ``tui-tok chat --json`` writes it: ``{"text", "ids"}``."""
    return json.dumps({"text": prompt.rendered, "ids": prompt.ids}, ensure_ascii=True) + "\n"
