"""The compare view (F7, ``tui-tok A.gguf --compare B.gguf``): one text through both tokenizers,
aligned by byte offset with the differing stretch highlighted, and the vocabulary/metadata diff.

Tokenizer A is the app's; B is built here in a worker. The comparison itself is
``explore.diff`` (pure); this screen only lays it out.

The text is the app's (``TuiTokApp.text``), the one typed in the tokenize view: the box here
edits that same text, both ways. An edit here sets the app's text (the tokenize view takes it
when it is next shown); a change from elsewhere is loaded into the box when this view is shown
(or at once if it is), so typing in the tokenize view never waits for a comparison it does
not show. The box is an ``Editor`` (exact text: a CR or U+2028 stays what it is, as there).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.reactive import var
from textual.widgets import Static, TextArea

from tui_tok.explore.diff.align import show_piece, wrap_cells
from tui_tok.explore.diff.text_diff import DiffToken, TextDiff, diff_texts, first_in_text
from tui_tok.explore.diff.vocab_diff import VocabDiff, diff_vocabs
from tui_tok.explore.visible import visible
from tui_tok.ui.screens.base import ViewScreen
from tui_tok.ui.widgets.editor import Editor, load_text
from tui_tok.ui.widgets.footer import Footer  # fitted to the width: F1-F9 at 80 columns
from tui_tok.ui.widgets.info_bar import InfoBar


class CompareScreen(ViewScreen):
    """Both tokenizations of the text under each other, and what differs in the vocabularies."""

    VIEW = "Compare"
    BINDINGS = [
        Binding("ctrl+b", "flip('add_special')", "Add special"),
        Binding("ctrl+t", "flip('parse_special')", "Parse special"),
        Binding("ctrl+l", "focus_diff", "Diff"),
    ]

    add_special: var[bool] = var(True)
    parse_special: var[bool] = var(False)
    tokenizer_b: var[Any] = var(None)
    """B's tokenizer once built."""

    def __init__(self) -> None:
        super().__init__()
        self.diff: TextDiff | None = None
        self.vocab: VocabDiff | None = None
        self.error_b: str | None = None
        self._sent = self.tui.text
        """The text this view last gave the app (its own edits come back through the watcher)."""

    @property
    def other(self) -> Any:
        return getattr(self.tui, "compare_gguf", None)

    def compose(self) -> ComposeResult:
        yield InfoBar(self.facts(), self.VIEW)
        with Vertical(id="cmp-main"):
            yield Editor(self.tui.text, id="cmp-input", soft_wrap=True)
            with VerticalScroll(id="cmp-scroll"):
                yield Static("", id="cmp-rows")
            with VerticalScroll(id="cmp-vocab-scroll"):
                yield Static("", id="cmp-vocab")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#cmp-input", TextArea).border_title = "Text"
        self.query_one("#cmp-vocab-scroll").border_title = "Vocabulary and metadata"
        self.watch(self.app, "text", self._shared_text_changed, init=False)
        if self.other is None:
            self._show_rows(Text("Press alt+c (or ctrl+p: Compare with…) to pick the model to compare with, or start "
                                 "with  tui-tok A.gguf --compare B.gguf", style="italic"))  # fmt: skip
            self.query_one("#cmp-vocab", Static).update("")
            return
        self.watch(self.app, "tokenizer", self._refresh)
        self.build_other()

    @work(thread=True, exclusive=True, group="compare", description="building tokenizer B and the vocabulary diff")
    def build_other(self) -> None:
        from tui_tok.errors import TuiTokError
        from tui_tok.loader import load_tokenizer

        other = self.other
        vocab = diff_vocabs(self.session.metadata, other.metadata)
        try:
            tok = load_tokenizer(other)
            error = None
        except TuiTokError as exc:
            tok, error = None, str(exc)
        self.app.call_from_thread(self._other_ready, tok, error, vocab)

    def _other_ready(self, tok: Any, error: str | None, vocab: VocabDiff) -> None:
        self.vocab = vocab
        self.error_b = error
        self.query_one("#cmp-vocab", Static).update(Text("\n".join(vocab.report_lines())))
        self.tokenizer_b = tok
        self._refresh()

    def watch_tokenizer_b(self) -> None:
        self._refresh()

    def watch_add_special(self) -> None:
        self._refresh()

    def watch_parse_special(self) -> None:
        self._refresh()

    @on(TextArea.Changed, "#cmp-input")
    def _text_changed(self) -> None:
        self._sent = self.tui.text = self.query_one("#cmp-input", TextArea).text  # _sent first: the watcher reads it
        self._refresh()

    def _shared_text_changed(self, text: str) -> None:
        """The app's text was edited elsewhere (the tokenize view): show it here, now or when shown."""
        if text is not self._sent and self.is_current:
            load_text(self.query_one("#cmp-input", Editor), text)

    def on_screen_resume(self) -> None:
        self._shared_text_changed(self.tui.text)

    def on_resize(self) -> None:
        self._refresh()

    def _refresh(self, _value: object = None) -> None:
        if self.other is None or not self.is_mounted:
            return
        tok_a, tok_b = self.tui.tokenizer, self.tokenizer_b
        if self.error_b or self.tui.tokenizer_error:
            self._show_rows(
                Text(
                    visible(f"cannot tokenize: {self.error_b or self.tui.tokenizer_error}", lines=True),
                    style="bold red",
                )
            )
            return
        if tok_a is None or tok_b is None:
            self._show_rows(Text("building the tokenizers…", style="italic"))
            return
        text = self.query_one("#cmp-input", TextArea).text
        with self.session.lock:
            self.diff = diff_texts(tok_a, tok_b, text, add_special=self.add_special, parse_special=self.parse_special)
        self._show_rows(self._render_diff(self.diff))

    def _render_diff(self, diff: TextDiff) -> Text:
        """The A and B rows wrapped together (``wrap_cells``, in cells, as ``tui-tok diff``): each
        pair of rows fits the box, and the Static never wraps one of them on its own."""
        scroll = self.query_one("#cmp-scroll")
        # "A " before each row; the vertical scrollbar's room kept whether it shows or not
        width = max(
            8,
            scroll.scrollable_content_region.width
            - 2
            - (0 if scroll.show_vertical_scrollbar else scroll.styles.scrollbar_size_vertical),
        )
        name_a, name_b = self.session.name, getattr(self.tui, "compare_label", None) or Path(self.other.path).name
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(f"A  {visible(name_a)}: {len(diff.a)} tokens\n", style="bold")
        out.append(f"B  {visible(name_b)}: {len(diff.b)} tokens\n", style="bold")
        if diff.first is None:
            out.append("same tokenization\n\n", style="green")
        else:
            f = diff.first
            out.append(f"first difference at byte {f.byte} (token {f.index})\n", style="bold red")
            if f.a is None or f.b is None or f.a.start == f.a.end or f.b.start == f.b.end:
                # an added BOS/EOS: say where the text itself first differs
                inner = first_in_text(diff)
                if inner is None:
                    out.append("only the added special tokens differ: the text tokenizes the same\n", style="green")
                else:
                    out.append(
                        f"after the specials: first difference at byte {inner.byte} "
                        f"(A {_token(inner.a)}, B {_token(inner.b)})\n",
                        style="bold red",
                    )
            out.append("\n")
        for row in wrap_cells(diff, width=width):
            for side in ("a", "b"):
                out.append("A " if side == "a" else "B ", style="bold")
                for cell in row:
                    out.append(getattr(cell, side), style="reverse red" if cell.differs else "")
                out.append("\n")
            out.append("\n")
        return out

    def _show_rows(self, text: Text) -> None:
        self.query_one("#cmp-rows", Static).update(text)

    def action_flip(self, name: str) -> None:
        setattr(self, name, not getattr(self, name))
        self.notify(f"{name.replace('_', ' ')}: {'on' if getattr(self, name) else 'off'}", timeout=1.5)

    def action_focus_diff(self) -> None:
        self.query_one("#cmp-scroll").focus()


def _token(t: DiffToken | None) -> str:
    return "end of tokens" if t is None else f"'{show_piece(t.piece)}'"
