"""The tool fields under a message of the Chat view: an assistant message's tool calls, a tool
message's ``tool_call_id`` and ``name`` (``explore/chat/tool_calls.py`` turns them into the
``--messages`` form).

One-line (compact) text boxes, so a call costs two rows under its message and Tab goes through
them in reading order: a call's function name, its id, its arguments (JSON), then the next call.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label

from tui_tok.explore.chat.tool_calls import CallFields


class FieldInput(Input):
    """A one-line tool field; ``seen`` is its last value (it posts ``Changed`` once when it mounts,
    which is no edit)."""

    def __init__(self, value: str, placeholder: str, classes: str) -> None:
        super().__init__(value, placeholder=placeholder, compact=True, classes=classes)
        self.seen = value


class ToolCallRow(Vertical):
    """One tool call: function name and id on the first row, the arguments on the second."""

    DEFAULT_CSS = """
    ToolCallRow { height: auto; padding: 0 0 0 1; }
    ToolCallRow Horizontal { height: 1; }
    ToolCallRow Label { width: 7; color: $text-muted; }
    ToolCallRow .tool-id-label { width: 4; }
    ToolCallRow Input { width: 1fr; }
    ToolCallRow .tool-call-id { width: 1fr; max-width: 24; }
    """

    def __init__(self, fields: CallFields) -> None:
        super().__init__(classes="tool-call")
        self._fields = fields

    def compose(self) -> ComposeResult:
        f = self._fields
        with Horizontal():
            yield Label("↳ call")
            yield FieldInput(f.name, "function name", "tool-call-name")
            yield Label(" id", classes="tool-id-label")
            yield FieldInput(f.call_id, "(none)", "tool-call-id")
        with Horizontal():
            yield Label("  args")
            yield FieldInput(f.arguments, 'arguments, JSON: {"city": "Paris"}', "tool-call-args")

    def fields(self) -> CallFields:
        def value(cls: str) -> str:
            return self.query_one(f".{cls}", Input).value

        return CallFields(
            value("tool-call-name"), value("tool-call-id"), value("tool-call-args"), self._fields.as_string
        )


class ToolResultRow(Horizontal):
    """A tool message's answer: the id of the call it answers and the tool's name."""

    DEFAULT_CSS = """
    ToolResultRow { height: 1; padding: 0 0 0 1; }
    ToolResultRow Label { width: auto; color: $text-muted; }
    ToolResultRow Input { width: 1fr; }
    """

    def __init__(self, call_id: str, name: str) -> None:
        super().__init__(classes="tool-result")
        self._initial = (call_id, name)

    def compose(self) -> ComposeResult:
        yield Label("↳ answers ")
        yield FieldInput(self._initial[0], "tool_call_id", "tool-result-id")
        yield Label(" name ")
        yield FieldInput(self._initial[1], "(none)", "tool-result-name")

    def values(self) -> tuple[str, str]:
        """(tool_call_id, name)."""
        return self.query_one(".tool-result-id", Input).value, self.query_one(".tool-result-name", Input).value
