"""``MessageSpans``: one row per message of the rendered prompt: role, first token, token count, notes.

Notes flag what goes wrong in prompts: text a user typed that becomes a special token (an injection),
a message the template left out (0 tokens), a position found from the content rather than by rendering
the conversation up to it (≈). The last rows are the generation prompt and the total.
"""

from __future__ import annotations

from collections import defaultdict

from rich.text import Text
from textual import events
from textual.widgets import DataTable

from tui_tok.explore.chat.prompt import ChatPrompt, Injection

COLUMNS = ("#", "role", "first token", "tokens", "notes")


class MessageSpans(DataTable[Text]):
    """Where each message's tokens are; selecting a row posts DataTable.RowSelected with the message index as key."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    _prompt: ChatPrompt | None = None
    _shown_width = -1

    def on_mount(self) -> None:
        self.add_columns(*COLUMNS)

    def show(self, prompt: ChatPrompt) -> None:
        self._prompt = prompt
        self._shown_width = self.size.width
        injected: dict[int, list[Injection]] = defaultdict(list)
        for inj in prompt.injections:
            injected[inj.message].append(inj)
        row = self.cursor_row
        self.clear()
        rows: list[tuple[list[Text], str]] = []
        for span in prompt.messages:
            notes = Text()
            for inj in injected.get(span.index, []):
                notes.append(f"⚠ {inj.text} → special {inj.token_id} ", style="bold red")
            if span.token_count == 0:
                # llama-server folds a system message into the first user message (no system role)
                notes.append("folded into a later message " if span.folded else "left out by the template ",
                             style="yellow")  # fmt: skip
            if not span.exact:
                notes.append("≈ located by content", style="dim")
            rows.append(([Text(str(span.index)), Text(span.role), Text(str(span.token_start)),
                          Text(str(span.token_count)), notes], str(span.index)))  # fmt: skip
        tail = len(prompt.tokens) - prompt.generation_start
        if tail:
            rows.append(([Text(""), Text("generation prompt", style="italic"), Text(str(prompt.generation_start)),
                          Text(str(tail)), Text("")], "generation"))  # fmt: skip
        rows.append(([Text(""), Text("total", style="bold"), Text(""), Text(str(len(prompt.tokens)), style="bold"),
                      Text(_dropped(prompt), style="dim")], "total"))  # fmt: skip
        # the notes wrap in the room the other columns leave (cut at the edge, they hid their end)
        others = sum(max(len(label), *(cells[k].cell_len for cells, _ in rows)) + 2
                     for k, label in enumerate(COLUMNS[:-1]))  # fmt: skip
        room = max(10, self.size.width - others - 2 - self.styles.scrollbar_size_vertical)
        for cells, key in rows:
            notes = cells[-1]
            if notes.cell_len > room:
                lines = notes.wrap(self.app.console, room)
                for line in lines:
                    line.rstrip()  # (in place) the space a line was cut at
                cells[-1] = Text("\n").join(lines)
            self.add_row(*cells, key=key, height=None)
        if 0 <= row < self.row_count:
            self.move_cursor(row=row, animate=False)

    def on_resize(self, event: events.Resize) -> None:
        if self._prompt is not None and self.is_mounted and event.size.width != self._shown_width:
            self.show(self._prompt)  # the notes wrap at the new width


def _dropped(prompt: ChatPrompt) -> str:
    parts = []
    if prompt.dropped_bos:
        parts.append("BOS text dropped: the vocab adds BOS")
    if prompt.dropped_eos:
        parts.append("EOS text dropped: the vocab adds EOS")
    return "; ".join(parts)
