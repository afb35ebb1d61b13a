"""``MessageSpans``: one row per message of the rendered prompt: role, first token, token count, notes.

Notes flag what goes wrong in prompts: text a user typed that becomes a special token (an injection),
a message the template left out (0 tokens), a position found from the content rather than by rendering
the conversation up to it (≈). The last rows are the generation prompt and the total.
"""

from __future__ import annotations

from collections import defaultdict

from rich.text import Text
from textual.widgets import DataTable

from tui_tok.explore.chat.prompt import ChatPrompt, Injection


class MessageSpans(DataTable[Text]):
    """Where each message's tokens are; selecting a row posts DataTable.RowSelected with the message index as key."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.add_columns("#", "role", "first token", "tokens", "notes")

    def show(self, prompt: ChatPrompt) -> None:
        injected: dict[int, list[Injection]] = defaultdict(list)
        for inj in prompt.injections:
            injected[inj.message].append(inj)
        row = self.cursor_row
        self.clear()
        for span in prompt.messages:
            notes = Text()
            for inj in injected.get(span.index, []):
                notes.append(f"⚠ {inj.text} → special {inj.token_id} ", style="bold red")
            if span.token_count == 0:
                notes.append("left out by the template ", style="yellow")
            if not span.exact:
                notes.append("≈ located by content", style="dim")
            self.add_row(Text(str(span.index)), Text(span.role), Text(str(span.token_start)),
                         Text(str(span.token_count)), notes, key=str(span.index))  # fmt: skip
        tail = len(prompt.tokens) - prompt.generation_start
        if tail:
            self.add_row(Text(""), Text("generation prompt", style="italic"), Text(str(prompt.generation_start)),
                         Text(str(tail)), Text(""), key="generation")  # fmt: skip
        self.add_row(Text(""), Text("total", style="bold"), Text(""), Text(str(len(prompt.tokens)), style="bold"),
                     Text(_dropped(prompt), style="dim"), key="total")  # fmt: skip
        if 0 <= row < self.row_count:
            self.move_cursor(row=row, animate=False)


def _dropped(prompt: ChatPrompt) -> str:
    parts = []
    if prompt.dropped_bos:
        parts.append("BOS text dropped: the vocab adds BOS")
    if prompt.dropped_eos:
        parts.append("EOS text dropped: the vocab adds EOS")
    return "; ".join(parts)
