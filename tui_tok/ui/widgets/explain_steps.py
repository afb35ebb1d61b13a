"""``MergeStepper``: a chunk's merge sequence stepped like a debugger, one row of symbols per
step with the pair it merges highlighted; ``chunk_text``: the text with chunk cuts drawn."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import Static

from tui_tok.explore.display import marked
from tui_tok.explore.explain_text import MergeRow, step_line
from tui_tok.tokenizer.explain.result import Explanation

PAIR = "reverse bold"
SYMBOL = "on #264f78"
SYMBOL_ALT = "on #2f6b4f"


def row_text(row: MergeRow, number: int, current: bool, family: str) -> Text:
    """One row: the step number, the symbols (the merged pair reversed), the merge."""
    t = Text(f"{number:3d} " if row.step is not None else "  = ", style="bold" if current else "dim")
    for k, sym in enumerate(row.symbols):
        style = PAIR if k in (row.at, row.at + 1) and row.at >= 0 else (SYMBOL if k % 2 == 0 else SYMBOL_ALT)
        if k:
            t.append("+" if k == row.at + 1 and row.at >= 0 else " ", style="bold" if k == row.at + 1 else "")
        t.append(marked(sym), style=style)
    if row.step is not None:
        t.append("   " + step_line(family, row.step, marked), style="bold" if current else "")
    return t


class MergeStepper(Static, can_focus=True):
    """Rows of a merge sequence; n/→ next step, p/← previous, home/end first/last."""

    BINDINGS = [
        Binding("n,right,down", "move(1)", "Next step"),
        Binding("p,left,up", "move(-1)", "Previous step"),
        Binding("home", "move(-100000)", "First", show=False),
        Binding("end", "move(100000)", "Last", show=False),
    ]

    step = reactive(0)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.rows: list[MergeRow] = []
        self.family = ""
        self.extra: list[Text] = []

    def show_rows(self, rows: list[MergeRow], family: str, extra: list[Text] | None = None) -> None:
        self.rows, self.family, self.extra = rows, family, extra or []
        self.step = 0
        self._paint()

    def action_move(self, by: int) -> None:
        if self.rows:
            self.step = max(0, min(len(self.rows) - 1, self.step + by))

    def watch_step(self) -> None:
        self._paint()

    def _paint(self) -> None:
        out = Text()
        if self.rows and len(self.rows) > 1:
            out.append(f"step {self.step + 1}/{len(self.rows)} (n/p to step)\n", style="italic")
            lo = max(0, self.step - 6)
            for k in range(lo, min(len(self.rows), lo + 14)):
                out.append_text(row_text(self.rows[k], k + 1, k == self.step, self.family))
                out.append("\n")
        elif self.rows:
            out.append("no merge: ", style="italic")
            out.append_text(row_text(self.rows[0], 1, True, self.family))
            out.append("\n")
        for line in self.extra:
            out.append_text(line)
            out.append("\n")
        self.update(out)


def chunk_text(expl: Explanation, focus: int, *, cuts: bool, limit: int = 600) -> Text:
    """The text around byte ``focus`` with ``│`` at every chunk cut (``cuts``) and ``‖`` at
    fragment edges; the focused chunk underlined, special tokens bold."""
    data = expl.text
    out = Text()
    lo, hi = max(0, focus - limit // 2), min(len(data), focus + limit // 2)
    for f in expl.fragments:
        if f.end <= lo or f.start >= hi:
            continue
        if out:
            out.append("‖", style="bold magenta")
        if f.special or not f.chunks:
            out.append(marked(data[f.start : f.end]), style="bold #d7005f" if f.special else "dim")
            continue
        for k, c in enumerate(f.chunks):
            if c.end <= lo or c.start >= hi:
                continue
            if k and cuts:
                out.append("│", style="bold yellow")
            style = "underline bold" if c.start <= focus < c.end or (focus == c.end == len(data)) else ""
            out.append(marked(data[c.start : c.end]), style=style)
    return out
