"""``ChatMessages``: the editable conversation of the Chat view, one box per message.

Each message is a ``MessageBox``: a ``MessageEditor`` for its text (an exact ``Editor`` whose border
title is its index and role, and whose subtitle the screen fills with where its tokens start and how
many there are), then, for an assistant message, its tool calls (``ToolCallRow``: name, id,
arguments) and, for a tool message, the call it answers (``ToolResultRow``). What a message from a
file holds that no field shows (``reasoning_content``, content parts, calls that are not functions)
is kept as it came and goes out with it. ``messages`` gives the conversation in the form
``tui-tok chat --messages`` reads (``explore/chat/tool_calls.py``).

The list adds, removes, moves and re-roles the message that has (or last had) focus, adds and
removes tool calls, and posts ``ChatMessages.Changed`` after every edit. A removed message (or
call) is kept on a stack of ``UNDO_DEPTH``: ``restore`` puts the latest back at its place, and
``undo_ready`` says whether a removal is still the latest edit (ctrl+z then restores it rather
than undoing the text box's own typing: the screen decides). Does not render or tokenize: the
screen does, off the UI thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.events import DescendantFocus
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, TextArea

from tui_tok.explore.chat.tool_calls import CallFields, call_fields, tool_call
from tui_tok.explore.visible import visible
from tui_tok.ui.widgets.chat_tool_fields import FieldInput, ToolCallRow, ToolResultRow
from tui_tok.ui.widgets.editor import Editor

ROLES = ("system", "user", "assistant", "tool")
UNDO_DEPTH = 20
"""Removed messages and calls ``restore`` can bring back."""


class MessageEditor(Editor):
    """The text of one message; ``role`` is shown in the border title.

    An ``Editor``: the text is the message's exactly, as loaded (a conversation file's CR, CR LF,
    U+2028 ... kept: ``TextArea``'s own document made them LF, or CR LF throughout once one line
    had it, and the prompt's tokens were not the file's), drawn one cell per character (CR as
    ``␍``); a paste's CR becomes LF as in the Tokenize view. Tab moves on to the next field; once
    removed it draws blank rows (``Editor``, Textual issue #6528)."""

    def __init__(self, role: str, content: str) -> None:
        super().__init__(content, soft_wrap=True, tab_behavior="focus", classes="chat-message")
        self.role = role

    def retitle(self, index: int) -> None:
        self.border_title = f"{index} · {visible(self.role)}"


def _text(value: object) -> str | None:
    """``value`` when a text box can hold it (a string without controls it would draw raw)."""
    return value if isinstance(value, str) and visible(value) == value else None


class MessageBox(Vertical):
    """One message: its text, its tool fields, and what no field shows (``extra``)."""

    DEFAULT_CSS = """
    MessageBox { height: auto; }
    MessageBox .tool-calls { height: auto; }
    """

    def __init__(self, message: Mapping[str, Any]) -> None:
        super().__init__(classes="chat-message-box")
        role = str(message.get("role", "user"))
        content = message.get("content")
        self.notes: list[str] = []
        """What of the message no field shows (kept, sent as it came)."""
        self.extra: dict[str, Any] = {k: v for k, v in message.items() if k not in ("role", "content")}
        self._absent = None if content is None and "content" in message else ... if "content" not in message else ""
        """What an empty text stands for: no ``content`` key (...), null, or the empty string."""
        text = content if isinstance(content, str) else "" if content is None else None
        if text is None:  # content parts: kept, the box read-only
            self.extra = {"content": content, **self.extra}
            self.notes.append("content that is not a string")
        self._calls: list[CallFields] = []
        if "tool_calls" in message and role == "assistant" and (calls := call_fields(message)) is not None:
            self._calls = calls
            del self.extra["tool_calls"]
        answer = ["", ""]
        if role == "tool":
            for i, key in enumerate(("tool_call_id", "name")):
                if key in message and (value := _text(message[key])) is not None:
                    answer[i] = value
                    del self.extra[key]
        self.notes += [k for k in self.extra if k != "content"]
        self.editor = MessageEditor(role, text or "")
        self.editor.read_only = text is None
        self._answer = (answer[0], answer[1])

    @property
    def role(self) -> str:
        return self.editor.role

    def compose(self) -> ComposeResult:
        yield self.editor
        with Vertical(classes="tool-calls"):
            for fields in self._calls:
                yield ToolCallRow(fields)
        yield ToolResultRow(*self._answer)

    def on_mount(self) -> None:
        self.show_role_fields()

    def show_role_fields(self) -> None:
        """Calls under an assistant message, the answered id under a tool message (kept, hidden, otherwise)."""
        self.query_one(".tool-calls").display = self.role == "assistant"
        self.query_one(ToolResultRow).display = self.role == "tool"

    @property
    def call_rows(self) -> list[ToolCallRow]:
        return [row for box in self.query_children(".tool-calls") for row in box.query_children(ToolCallRow)]

    def calls(self) -> list[CallFields]:
        """The calls as their fields hold them (as given while the box is not composed yet)."""
        if not self.query_children(".tool-calls"):
            return list(self._calls)
        return [row.fields() for row in self.call_rows]

    async def add_call(self, fields: CallFields | None = None, at: int | None = None) -> ToolCallRow:
        row, rows = ToolCallRow(fields or CallFields()), self.call_rows
        box = self.query_one(".tool-calls")
        if at is not None and at < len(rows):
            await box.mount(row, before=rows[at])
        else:
            await box.mount(row)
        return row

    def message(self, index: int, *, strict: bool = True) -> dict[str, Any]:
        """The message in the ``--messages`` form (``strict``: arguments that are not JSON raise)."""
        text = self.editor.text
        out: dict[str, Any] = {"role": self.role}
        if "content" in self.extra:
            out["content"] = self.extra["content"]
        elif text or self._absent == "":
            out["content"] = text
        elif self._absent is None:
            out["content"] = None
        if self.role == "assistant" and (calls := self.calls()):
            out["tool_calls"] = [tool_call(c, where=f"message {index}, tool call {j}", strict=strict)
                                 for j, c in enumerate(calls)]  # fmt: skip
        if self.role == "tool":
            rows = list(self.query_children(ToolResultRow))  # none yet: the box is not composed
            call_id, name = rows[0].values() if rows else self._answer
            if call_id:
                out["tool_call_id"] = call_id
            if name:
                out["name"] = name
        out.update((k, v) for k, v in self.extra.items() if k != "content" and k not in out)
        return out


@dataclass(frozen=True, slots=True)
class Removed:
    """What ``restore`` puts back: a message at ``index``, or (``box`` set) a call of that box."""

    index: int
    message: dict[str, Any] | None = None
    box: MessageBox | None = None
    call: CallFields | None = None


class ChatMessages(VerticalScroll, can_focus=False):
    """The conversation: ``messages()`` reads it, ``add``/``remove_current``/``restore``/``move``/
    ``cycle_role``/``add_call`` edit it. Not a focus stop itself: Tab goes from box to box."""

    @dataclass
    class Changed(Message):
        """The conversation changed (a text, a role, the order or the number of messages)."""

        chat: ChatMessages

        @property
        def control(self) -> ChatMessages:
            return self.chat

    def __init__(self, messages: Sequence[Mapping[str, Any] | tuple[str, str]], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._initial = [m if isinstance(m, Mapping) else {"role": m[0], "content": m[1]} for m in messages]
        self.current = 0
        """Index of the message the keys act on (the one focused last)."""
        self._call_focused: ToolCallRow | None = None
        self.removed: list[Removed] = []
        self.undo_ready = 0
        """How many of the latest removals no other edit followed (ctrl+z restores those)."""

    def compose(self) -> ComposeResult:
        for message in self._initial:
            yield MessageBox(message)

    def on_mount(self) -> None:
        self._retitle()

    @property
    def boxes(self) -> list[MessageBox]:
        return list(self.query_children(MessageBox))

    @property
    def editors(self) -> list[MessageEditor]:
        return [box.editor for box in self.boxes]

    def messages(self, *, strict: bool = True) -> list[dict[str, Any]]:
        """The conversation as the template gets it; ``strict``: tool-call arguments that are not
        JSON raise ``ChatInputError`` (else they are kept as a string: what a saved session holds)."""
        return [box.message(i, strict=strict) for i, box in enumerate(self.boxes)]

    @staticmethod
    def prepare(messages: Sequence[Mapping[str, Any]]) -> tuple[list[MessageBox], list[str]]:
        """Boxes for ``messages`` (for ``replace``), and a line per message with something no field shows."""
        boxes = [MessageBox(m) for m in messages]
        return boxes, [
            f"message {i}: kept as it came, not editable: {', '.join(b.notes)}" for i, b in enumerate(boxes) if b.notes
        ]

    async def replace(self, boxes: list[MessageBox]) -> None:
        """Make ``boxes`` (from ``prepare``) the conversation; the focus goes to the last message, as
        when the view opens (it was lost with the old boxes), unless it is in a text box of the view."""
        focused = self.screen.focused
        refocus = not isinstance(focused, (TextArea, Input)) or self in focused.ancestors
        await self.remove_children()
        await self.mount_all(boxes)
        self.current, self.removed, self.undo_ready = max(0, len(boxes) - 1), [], 0
        if refocus and boxes:
            boxes[-1].editor.focus()
        self._changed()

    def _retitle(self) -> None:
        for i, editor in enumerate(self.editors):
            editor.retitle(i)

    def _changed(self) -> None:
        self._retitle()
        self.post_message(self.Changed(self))

    def _edit(self) -> None:
        """An edit other than a removal: ctrl+z is the text boxes' own undo again."""
        self.undo_ready = 0
        self._changed()

    @on(DescendantFocus)
    def _focused(self, event: DescendantFocus) -> None:
        boxes = self.boxes
        box = next((a for a in event.widget.ancestors_with_self if isinstance(a, MessageBox)), None)
        if box in boxes:
            self.current = boxes.index(box)
        self._call_focused = next((a for a in event.widget.ancestors_with_self if isinstance(a, ToolCallRow)), None)

    @on(TextArea.Changed, ".chat-message")
    def _edited(self, event: TextArea.Changed) -> None:
        event.stop()
        self.undo_ready = 0
        self.post_message(self.Changed(self))

    @on(Input.Changed)
    def _field_edited(self, event: Input.Changed) -> None:
        event.stop()
        if not isinstance(event.input, FieldInput) or event.input.seen == event.value:
            return  # a field posts its first value when it mounts: not an edit
        event.input.seen = event.value
        self.undo_ready = 0
        self.post_message(self.Changed(self))

    def add(self) -> None:
        """A new message after the current one, with the role that usually follows it."""
        boxes = self.boxes
        after = boxes[self.current] if boxes else None
        role = "user" if after is None or after.role != "user" else "assistant"
        box = MessageBox({"role": role, "content": ""})
        if after is None:
            self.mount(box)
        else:
            self.mount(box, after=after)
        self.current = self.current + 1 if after is not None else 0
        self.call_after_refresh(box.editor.focus)
        self.call_after_refresh(self._edit)

    async def add_call(self) -> bool:
        """A new tool call under the current message, focused; False when it is not an assistant's."""
        boxes = self.boxes
        if not boxes or boxes[self.current].role != "assistant":
            return False
        row = await boxes[self.current].add_call()
        row.query_one(".tool-call-name", Input).focus()
        self._edit()
        return True

    async def remove_current(self) -> str:
        """Remove the focused tool call, else the current message; says what was removed. Waits
        until it is gone, so that no frame is drawn with an editor half removed (that raised a
        KeyError for its gutter style)."""
        boxes = self.boxes
        row = self._call_focused
        focused = self.app.focused
        if row is not None and row.is_mounted and focused is not None and row in focused.ancestors:
            box = next(a for a in row.ancestors if isinstance(a, MessageBox))
            index = box.call_rows.index(row)
            self._push(Removed(index, box=box, call=row.fields()))
            self._call_focused = None
            await row.remove()
            rows = box.call_rows
            (rows[min(index, len(rows) - 1)].query_one(Input) if rows else box.editor).focus()
            self._changed()
            return f"tool call {index} of message {boxes.index(box)}"
        if not boxes:
            return ""
        index = min(self.current, len(boxes) - 1)
        self._push(Removed(index, message=boxes[index].message(index, strict=False)))
        await boxes[index].remove()
        self.current = max(0, min(index, len(boxes) - 2))
        if len(boxes) > 1:
            self.boxes[self.current].editor.focus()
        self._changed()
        return f"message {index} ({visible(boxes[index].role)})"

    def _push(self, removed: Removed) -> None:
        self.removed = [*self.removed, removed][-UNDO_DEPTH:]
        self.undo_ready = min(self.undo_ready + 1, len(self.removed))

    async def restore(self) -> str:
        """Put the latest removed message or call back at its place; says what (empty: nothing)."""
        while self.removed:
            item = self.removed.pop()
            self.undo_ready = max(0, self.undo_ready - 1)
            if item.message is not None:
                boxes = self.boxes
                box = MessageBox(item.message)
                if item.index < len(boxes):
                    await self.mount(box, before=boxes[item.index])
                else:
                    await self.mount(box)
                self.current = self.boxes.index(box)
                focus: Widget = box.editor
                what = f"message {self.current} ({visible(box.role)})"
            elif item.box is not None and item.box.is_mounted and item.call is not None:
                row = await item.box.add_call(item.call, at=item.index)
                focus = row.query_one(Input)
                what = f"tool call {item.index} of message {self.boxes.index(item.box)}"
            else:
                continue  # the call's message was removed since
            focus.focus()
            self._changed()
            return what
        return ""

    def move(self, delta: int) -> None:
        """Move the current message ``delta`` (-1 up, +1 down) past its neighbour."""
        boxes = self.boxes
        i, j = self.current, self.current + delta
        if not (0 <= i < len(boxes) and 0 <= j < len(boxes)):
            return
        if delta < 0:
            self.move_child(boxes[i], before=boxes[j])
        else:
            self.move_child(boxes[i], after=boxes[j])
        self.current = j
        boxes[i].editor.focus()
        boxes[i].scroll_visible()
        self._edit()

    def cycle_role(self) -> None:
        boxes = self.boxes
        if not boxes:
            return
        box = boxes[self.current]
        editor = box.editor
        editor.role = ROLES[(ROLES.index(editor.role) + 1) % len(ROLES)] if editor.role in ROLES else ROLES[0]
        box.show_role_fields()
        self._edit()
