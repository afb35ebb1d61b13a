"""``ChatMessages``: the editable conversation of the Chat view, one text box per message.

Each message is a ``MessageEditor`` (a ``TextArea`` whose border title is its index and role, and
whose subtitle the screen fills with where its tokens start and how many there are). The list adds,
removes, moves and re-roles the message that has (or last had) focus, and posts
``ChatMessages.Changed`` after every edit. Does not render or tokenize: the screen does, off the UI thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual import on
from textual.containers import VerticalScroll
from textual.events import DescendantFocus
from textual.message import Message
from textual.widgets import TextArea

from tui_tok.ui.widgets.text_keys import TEXT_AREA_BINDINGS

ROLES = ("system", "user", "assistant", "tool")


class MessageEditor(TextArea, inherit_bindings=False):
    """The text of one message; ``role`` is shown in the border title."""

    BINDINGS = TEXT_AREA_BINDINGS

    def __init__(self, role: str, content: str) -> None:
        super().__init__(content, soft_wrap=True, classes="chat-message")
        self.role = role

    def retitle(self, index: int) -> None:
        self.border_title = f"{index} · {self.role}"


class ChatMessages(VerticalScroll):
    """The conversation: ``messages()`` reads it, ``add``/``remove``/``move``/``cycle_role`` edit it."""

    @dataclass
    class Changed(Message):
        """The conversation changed (a text, a role, the order or the number of messages)."""

        chat: ChatMessages

        @property
        def control(self) -> ChatMessages:
            return self.chat

    def __init__(self, messages: Sequence[tuple[str, str]], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._initial = list(messages)
        self.current = 0
        """Index of the message the keys act on (the one focused last)."""

    def compose(self):  # type: ignore[no-untyped-def]
        for role, content in self._initial:
            yield MessageEditor(role, content)

    def on_mount(self) -> None:
        self._retitle()

    @property
    def editors(self) -> list[MessageEditor]:
        return list(self.query(MessageEditor))

    def messages(self) -> list[dict[str, str]]:
        """The conversation as the template gets it."""
        return [{"role": e.role, "content": e.text} for e in self.editors]

    def _retitle(self) -> None:
        for i, editor in enumerate(self.editors):
            editor.retitle(i)

    def _changed(self) -> None:
        self._retitle()
        self.post_message(self.Changed(self))

    @on(DescendantFocus)
    def _focused(self, event: DescendantFocus) -> None:
        editors = self.editors
        if isinstance(event.widget, MessageEditor) and event.widget in editors:
            self.current = editors.index(event.widget)

    @on(TextArea.Changed, ".chat-message")
    def _edited(self, event: TextArea.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self))

    def add(self) -> None:
        """A new message after the current one, with the role that usually follows it."""
        editors = self.editors
        after = editors[self.current] if editors else None
        role = "user" if after is None or after.role != "user" else "assistant"
        editor = MessageEditor(role, "")
        if after is None:
            self.mount(editor)
        else:
            self.mount(editor, after=after)
        self.current = self.current + 1 if after is not None else 0
        self.call_after_refresh(editor.focus)
        self.call_after_refresh(self._changed)

    async def remove_current(self) -> None:
        """Remove the current message; waits until it is gone, so that no frame is drawn
        with an editor half removed (that raised a KeyError for its gutter style)."""
        editors = self.editors
        if not editors:
            return
        await editors[self.current].remove()
        self.current = max(0, min(self.current, len(editors) - 2))
        self._after_remove()

    def _after_remove(self) -> None:
        editors = self.editors
        if editors:
            editors[min(self.current, len(editors) - 1)].focus()
        self._changed()

    def move(self, delta: int) -> None:
        """Swap the current message with its neighbour ``delta`` (-1 up, +1 down) away."""
        editors = self.editors
        i, j = self.current, self.current + delta
        if not (0 <= i < len(editors) and 0 <= j < len(editors)):
            return
        a, b = editors[i], editors[j]
        a_role, a_text = a.role, a.text
        a.role, b.role = b.role, a_role
        a.load_text(b.text)
        b.load_text(a_text)
        self.current = j
        b.focus()
        self._changed()

    def cycle_role(self) -> None:
        editors = self.editors
        if not editors:
            return
        editor = editors[self.current]
        editor.role = ROLES[(ROLES.index(editor.role) + 1) % len(ROLES)] if editor.role in ROLES else ROLES[0]
        self._changed()
