"""The Explain view (F8): why the selected token of the Tokenize view is what it is.

The Tokenize view asks for it with F8 on a token (``request_explanation``); the explanation of
the raw fragment holding that token is computed in a worker thread (never on a keystroke) and
shown as: the text with chunk cuts drawn (``b`` toggles them), the chunk's rule and facts, the
merge sequence stepped like a debugger (``n``/``p``) for BPE and SPM, the path, rivals and
alternatives with the lattice around the token as a table for UGM, the greedy matches for WPM
and RWKV; and a "Why not?" box: type ``Hel|lo`` or a token and press Enter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Static

from tui_tok.explore.display import display_piece, marked
from tui_tok.explore.explain_text import lattice_rows, merge_rows, show, step_line
from tui_tok.explore.visible import visible
from tui_tok.tokenizer.explain import Explanation, explain, why_not
from tui_tok.tokenizer.explain.result import Chunk
from tui_tok.tokenizer.explain.ugm import UgmDetail
from tui_tok.ui.screens.base import ViewScreen
from tui_tok.ui.widgets.explain_steps import MergeStepper, chunk_text
from tui_tok.ui.widgets.footer import Footer  # fitted to the width: F1-F9 at 80 columns
from tui_tok.ui.widgets.info_bar import InfoBar


@dataclass(frozen=True, slots=True)
class ExplainRequest:
    """What to explain: the text, the byte offset of the selected token, the parse flag."""

    text: str
    offset: int
    parse_special: bool


def request_explanation(app: App[Any], text: str, offset: int, parse_special: bool) -> None:
    """Open the Explain view on the token at byte ``offset`` of ``text``."""
    app.explain_request = ExplainRequest(text, offset, parse_special)  # type: ignore[attr-defined]
    app.switch_mode("explain")


class ExplainScreen(ViewScreen):
    VIEW = "Explain"
    BINDINGS = [
        Binding("b", "toggle_cuts", "Chunk cuts"),
        Binding("w", "focus_why", "Why not?"),
        Binding("escape", "back", "Back to tokens"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.request: ExplainRequest | None = None
        self.explanation: Explanation | None = None
        self.chunk: Chunk | None = None
        self.cuts = True

    def compose(self) -> ComposeResult:
        yield InfoBar(self.facts(), self.VIEW)
        with Horizontal(id="ex-main"):
            with Vertical(id="ex-left"):
                yield Static("", id="ex-text")
                yield MergeStepper(id="ex-steps")
                yield DataTable(id="ex-lattice", cursor_type="row", zebra_stripes=True)
            with Vertical(id="ex-side"):
                yield Static("Select a token in the Tokenize view and press F8.", id="ex-summary")
                yield Input(placeholder="Why not? Hel|lo or a token, Enter", id="ex-why")
                yield Static("", id="ex-answer")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#ex-text", Static).border_title = "Text · chunk cuts (b)"
        self.query_one("#ex-steps", MergeStepper).border_title = "Steps"
        self.query_one("#ex-summary", Static).border_title = "Chunk"
        self.query_one("#ex-answer", Static).border_title = "Why not?"
        table = self.query_one("#ex-lattice", DataTable)
        table.border_title = "UGM lattice around the token"
        table.add_columns("at", "piece", "score", "offered total", "best")
        table.display = False
        self.query_one("#ex-steps", MergeStepper).focus()
        self._refresh_request()

    def on_screen_resume(self) -> None:
        self._refresh_request()

    def _refresh_request(self) -> None:
        req = getattr(self.app, "explain_request", None)
        if req is None and self.request is None:
            req = ExplainRequest(self.tui.text, 0, False)
        if req is not None and req != self.request:
            self.request = req
            self.query_one("#ex-summary", Static).update("explaining…")
            self._compute(req)

    @work(thread=True, exclusive=True, group="explain")
    def _compute(self, req: ExplainRequest) -> None:
        tok = self.tui.tokenizer
        if tok is None:
            self.app.call_from_thread(self._show_error, self.tui.tokenizer_error or "the tokenizer is still loading")
            return
        try:
            with self.session.lock:  # explain reaches into the encoder's internals (ui/session.py)
                expl = explain(tok, req.text, parse_special=req.parse_special, focus=req.offset)
        except Exception as exc:  # shown, never a crash of the explorer
            self.app.call_from_thread(self._show_error, f"{type(exc).__name__}: {exc}")
            return
        self.app.call_from_thread(self._show, req, expl)

    def _show_error(self, message: str) -> None:
        self.query_one("#ex-summary", Static).update(Text(visible(message, lines=True), style="bold red"))

    def _show(self, req: ExplainRequest, expl: Explanation) -> None:
        if req != self.request:
            return
        self.explanation = expl
        tok = self.tui.tokenizer
        assert tok is not None
        offset = min(req.offset, max(len(expl.text) - 1, 0))
        self.query_one("#ex-text", Static).update(chunk_text(expl, offset, cuts=self.cuts))
        if not expl.fragments:
            self.query_one("#ex-summary", Static).update("no text")
            return
        frag, chunk = expl.chunk_at(offset)
        self.chunk = chunk
        piece = self._piece
        lines = [
            Text.assemble(
                ("fragment ", "bold"), f"[{frag.start}-{frag.end}] ", "special token" if frag.special else "raw text"
            )
        ]
        if chunk is not None:
            rule = expl.rules[chunk.cut] if 0 <= chunk.cut < len(expl.rules) else "start of the fragment"
            lines += [
                Text.assemble(("chunk ", "bold"), f"[{chunk.start}-{chunk.end}] '{marked(chunk.text)[:60]}'"),
                Text.assemble(("cut by ", "bold"), show(rule)[:80]),
                Text.assemble(
                    ("tokens ", "bold"),
                    " ".join(f"{i}:{piece(i)!r}" for i in chunk.ids[:16]),
                    " …" if len(chunk.ids) > 16 else "",
                ),
            ]
            if chunk.shortcut:
                lines.append(Text(visible(chunk.shortcut), style="italic"))
        lines += [Text(visible(n), style="dim") for n in expl.notes]
        self.query_one("#ex-summary", Static).update(Text("\n").join(lines))
        self._show_steps(expl, chunk, offset)

    def _show_steps(self, expl: Explanation, chunk: Chunk | None, offset: int) -> None:
        stepper = self.query_one("#ex-steps", MergeStepper)
        table = self.query_one("#ex-lattice", DataTable)
        table.display = False
        if chunk is None:
            stepper.show_rows([], expl.family, [Text("a special token: matched whole by the partition")])
            return
        steps = [s for s in chunk.steps if s.kind != "merge"]
        here = next((k for k, s in enumerate(steps) if s.kind in ("piece", "match") and s.start <= offset < s.end), 0)
        if len(steps) > 24:  # long fragments (UGM, RWKV): the steps around the selected token
            steps = steps[max(0, here - 6) : here + 10] + [s for s in steps if s.kind == "path"]
        others = [Text(step_line(expl.family, s, marked), style="bold reverse" if s.start <= offset < s.end and s.kind in ("piece", "match") else "")
                  for s in steps]  # fmt: skip
        if expl.family in ("bpe", "spm") and chunk.symbols:
            stepper.show_rows(merge_rows(chunk), expl.family, others)
        else:
            stepper.show_rows([], expl.family, others)
        if isinstance(chunk.detail, UgmDetail):
            table.clear()
            piece_step = next((s for s in chunk.steps if s.kind == "piece" and s.start <= offset < s.end), None)
            lo, hi = (piece_step.start, piece_step.end) if piece_step else (chunk.start, chunk.end)
            for row in lattice_rows(chunk.detail, lo, hi, self._piece):
                table.add_row(*map(Text, row))  # a piece may be ``[/]``: Text, never markup
            table.display = True

    def _piece(self, tid: int) -> str:
        tok = self.tui.tokenizer
        if tok is None or not 0 <= tid < tok.vocab.n_tokens:
            return str(tid)
        return display_piece(tok.vocab.tokens[tid])  # the marks of every view, not '\n' escapes

    @on(Input.Submitted, "#ex-why")
    def _why(self, event: Input.Submitted) -> None:
        tok, expl, chunk = self.tui.tokenizer, self.explanation, self.chunk
        answer = self.query_one("#ex-answer", Static)
        if tok is None or expl is None or chunk is None or not event.value:
            answer.update("select a raw token first")
            return
        value = event.value
        with self.session.lock:  # it reads the encoder's tables (ui/session.py)
            if "|" in value:
                result = why_not(tok, expl, chunk, split=value)
            else:
                result = why_not(tok, expl, chunk, token=value)
        answer.update(
            Text("\n").join(
                [Text(visible(result.verdict), style="bold"), *(Text("• " + visible(r)) for r in result.reasons)]
            )
        )

    def action_toggle_cuts(self) -> None:
        self.cuts = not self.cuts
        if self.explanation is not None and self.request is not None:
            off = min(self.request.offset, max(len(self.explanation.text) - 1, 0))
            self.query_one("#ex-text", Static).update(chunk_text(self.explanation, off, cuts=self.cuts))

    def action_focus_why(self) -> None:
        self.query_one("#ex-why", Input).focus()

    def action_back(self) -> None:
        self.app.switch_mode("tokenize")
