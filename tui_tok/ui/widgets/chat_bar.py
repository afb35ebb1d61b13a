"""``ChatBar``: the Chat view's controls over the request, two one-line rows above the conversation.

First row: the template (the file's, loaded files', the edited one), the runtime, thinking and
reasoning_effort; second row: add_generation_prompt, continue the last message, and the template
variables (``chat_template_kwargs``, ``KEY=VALUE``). Compact widgets (no borders): at 80x24 the
conversation and the prompt keep their rows. A template's name is the file's or a file name: shown
as ``Text``, never markup. Reads nothing and renders nothing: the screen reads ``choices()`` and
listens to the widgets' ``Changed`` messages.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Select

from tui_tok.explore.chat.controls import REASONING_EFFORTS, THINKING
from tui_tok.explore.chat.llama_server.runtime import RUNTIMES
from tui_tok.explore.visible import visible
from tui_tok.ui.widgets.check_box import CheckBox

UNSET = "unset"
"""The reasoning-effort choice that sends none."""


@dataclass(frozen=True, slots=True)
class Choices:
    """What the bar says the request is."""

    template: str
    runtime: str
    thinking: str
    """``auto``, ``on`` or ``off`` (``controls.THINKING``)."""
    reasoning_effort: str | None
    add_generation_prompt: bool
    continue_final_message: str | None
    """``"auto"`` when the last message is continued, else None."""
    variables: str


class ChatBar(Vertical):
    """The template, runtime and request controls of the Chat view."""

    DEFAULT_CSS = """
    ChatBar { height: 2; }
    ChatBar > Horizontal { height: 1; }
    ChatBar Select { margin: 0 1 0 0; }
    ChatBar #chat-template { width: 1fr; max-width: 32; }
    ChatBar #chat-runtime { width: 16; }
    ChatBar #chat-thinking { width: 17; }
    ChatBar #chat-effort { width: 18; }
    ChatBar CheckBox { width: auto; height: 1; border: none; margin: 0 1 0 0; background: transparent; }
    ChatBar #chat-vars { width: 1fr; }
    """

    def __init__(self, templates: Iterable[str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._names = list(templates)

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Select(template_options(self._names), value=self._names[0], allow_blank=False, compact=True,
                         id="chat-template", tooltip="chat template (^L loads a file, ^S edits)")  # fmt: skip
            yield Select([(r, r) for r in RUNTIMES], value=RUNTIMES[0], allow_blank=False, compact=True,
                         id="chat-runtime", tooltip="who renders: llama-server (llama.cpp) or transformers")  # fmt: skip
            yield Select([(f"thinking {t}", t) for t in THINKING], value=THINKING[0], allow_blank=False, compact=True,
                         id="chat-thinking", tooltip="enable_thinking (auto: the runtime's default)")  # fmt: skip
            yield Select([(f"effort {e}", e) for e in (UNSET, *REASONING_EFFORTS)], value=UNSET, allow_blank=False,
                         compact=True, id="chat-effort", tooltip="the request's reasoning_effort")  # fmt: skip
        with Horizontal():
            yield CheckBox("gen. prompt ^G", True, compact=True, id="chat-agp")
            yield CheckBox("continue last", False, compact=True, id="chat-continue")
            yield Input(placeholder="variables: enable_thinking=false", compact=True, id="chat-vars")

    @on(CheckBox.Changed, "#chat-continue")
    def _continue_changed(self, event: CheckBox.Changed) -> None:
        # a continued message has no generation prompt after it (llama-server refuses both): greyed meanwhile
        self.query_one("#chat-agp", CheckBox).disabled = event.value

    def choices(self) -> Choices:
        template = self.query_one("#chat-template", Select).value
        effort = str(self.query_one("#chat-effort", Select).value)
        return Choices(
            template=template if isinstance(template, str) else self._names[0],
            runtime=str(self.query_one("#chat-runtime", Select).value),
            thinking=str(self.query_one("#chat-thinking", Select).value),
            reasoning_effort=None if effort == UNSET else effort,
            add_generation_prompt=self.query_one("#chat-agp", CheckBox).value,
            continue_final_message="auto" if self.query_one("#chat-continue", CheckBox).value else None,
            variables=self.query_one("#chat-vars", Input).value,
        )

    def cycle(self, select_id: str) -> None:
        """Choose the next option of ``select_id`` (``chat-runtime``, ``chat-thinking``, ``chat-effort``)."""
        values = {"chat-template": self._names, "chat-runtime": list(RUNTIMES), "chat-thinking": list(THINKING),
                  "chat-effort": [UNSET, *REASONING_EFFORTS]}[select_id]  # fmt: skip
        select = self.query_one(f"#{select_id}", Select)
        at = values.index(select.value) if select.value in values else -1
        select.value = values[(at + 1) % len(values)]

    def set_templates(self, names: Iterable[str], value: str) -> None:
        """Offer ``names`` and select ``value`` (one of them)."""
        self._names = list(names)
        select = self.query_one("#chat-template", Select)
        select.set_options(template_options(self._names))
        select.value = value


def template_options(names: Iterable[str]) -> list[tuple[Text, str]]:
    """Select options for template names: ``Text``, never markup (a file's name may be ``rag[/]``)."""
    return [(Text(visible(n)), n) for n in names]
