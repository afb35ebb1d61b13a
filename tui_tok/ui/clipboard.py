"""Copying what a view shows to the clipboard (Textual's ``App.copy_to_clipboard``: OSC 52).

``ctrl+c`` (in the footer) copies the view's main thing unless the focused text box has a
selection (that box copies its selection itself): the ids (Tokenize), the rendered prompt (Chat), the finding (Lint), the diff
(Compare), the trace (Explain). ``copy_commands`` lists every copy of the current view for the
command palette. Each copy says what it copied in a notification; a copy too big for a terminal
to pass on (OSC 52 sends the text base64-encoded through the terminal) is refused with a warning
instead of being cut short. The text forms are ``explore/copy_forms.py``'s.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand
from textual.screen import Screen

from tui_tok.explore import copy_forms

MAX_COPY_CHARS = 2_000_000
"""Above this the copy is refused: terminals and tmux drop (or choke on) OSC 52 sequences of many MB."""

Copy = tuple[str, str, Callable[[], str | None]]
"""A palette title, what the notification calls it, and a function giving the text (None: nothing to copy)."""


def copy_text(app: App[Any], text: str, what: str) -> bool:
    """Put ``text`` on the clipboard and say so; False (with a warning) when it is too long."""
    if len(text) > MAX_COPY_CHARS:
        app.notify(f"The {what} is too long to copy ({len(text):,} characters; at most {MAX_COPY_CHARS:,}). "
                   "Export it to a file instead.", title="Not copied", severity="warning", markup=False)  # fmt: skip
        return False
    # a clipboard holds UTF-8: a byte that was not (U+DC80-DCFF in the text) becomes U+FFFD there
    app.copy_to_clipboard(copy_forms.bytes_of(text).decode("utf-8", "replace"))
    lines = text.count("\n") + 1
    size = f"{len(text):,} characters" + (f", {lines:,} lines" if lines > 1 else "")
    app.notify(f"Copied the {what} ({size})", title="Copied", markup=False)
    return True


def copies(screen: Screen[Any]) -> list[Copy]:
    """What ``screen`` can copy, its main thing (``ctrl+c``) first. A view whose module is not
    imported yet cannot be the screen: none is imported here (the footer asks on the first frame,
    and importing every view then held the UI thread while a long ``--text`` was being counted)."""
    ChatScreen, CompareScreen = _loaded("chat", "ChatScreen"), _loaded("compare", "CompareScreen")
    DiagnosticsScreen, ExplainScreen = _loaded("diagnostics", "DiagnosticsScreen"), _loaded("explain", "ExplainScreen")
    MetadataScreen, StreamScreen = _loaded("metadata", "MetadataScreen"), _loaded("stream", "StreamScreen")
    TokenizeScreen, VocabScreen = _loaded("tokenize", "TokenizeScreen"), _loaded("vocab", "VocabScreen")

    if isinstance(screen, TokenizeScreen):
        return _tokenize_copies(screen)
    if isinstance(screen, ChatScreen):
        return [
            ("Copy the rendered chat prompt", "rendered chat prompt", lambda: _prompt(screen, ids=False)),
            ("Copy the chat prompt's ids", "chat prompt's ids", lambda: _prompt(screen, ids=True)),
        ]
    if isinstance(screen, DiagnosticsScreen):
        return [("Copy the lint finding", "lint finding",
                 lambda: None if (f := screen.current()) is None else copy_forms.finding_text(f))]  # fmt: skip
    if isinstance(screen, CompareScreen):
        return [("Copy the diff", "diff", lambda: _diff(screen))]
    if isinstance(screen, ExplainScreen):
        return [("Copy the explain trace", "explain trace", lambda: _trace(screen))]
    if isinstance(screen, StreamScreen):
        ids = getattr(screen.app, "ids")
        return [("Copy the token ids", "token ids", lambda: copy_forms.ids_list(list(ids)) if len(ids) else None)]
    if isinstance(screen, VocabScreen):
        return [("Copy the token's details", "token's details", lambda: _vocab_details(screen))]
    if isinstance(screen, MetadataScreen):
        return [("Copy the metadata value", "metadata value", lambda: _metadata_value(screen))]
    return []


def copy_main(screen: Screen[Any]) -> None:
    """``ctrl+c`` outside text boxes: copy the view's main thing (a view with none says how to quit)."""
    found = copies(screen)
    if not found:
        screen.app.notify("Nothing to copy in this view. Press ctrl+q to quit.", markup=False)
        return
    run_copy(screen.app, found[0])


def run_copy(app: App[Any], copy: Copy) -> None:
    _title, what, make = copy
    text = make()
    if text is None:
        app.notify(f"No {what} to copy yet.", severity="warning", markup=False)
    else:
        copy_text(app, text, what)


def copy_commands(screen: Screen[Any]) -> Iterable[SystemCommand]:
    """The palette's copy commands for ``screen``."""
    for n, copy in enumerate(copies(screen)):
        key = "ctrl+c outside text boxes" if n == 0 else "palette"
        yield SystemCommand(copy[0], f"To the clipboard ({key})", lambda c=copy: run_copy(screen.app, c))


def _loaded(module: str, name: str) -> Any:
    """Class ``name`` of ``tui_tok.ui.screens.<module>`` if that module is imported, else a class
    no screen is an instance of."""
    found = sys.modules.get(f"tui_tok.ui.screens.{module}")
    return getattr(found, name) if found is not None else _NotLoaded


class _NotLoaded:
    """No screen is one (``_loaded``)."""


def _tokenize_copies(screen: Any) -> list[Copy]:
    from tui_tok.explore.tokenize_engine import details_rows
    from tui_tok.ui.widgets.token_view import TokenView

    def layout() -> Any:
        return screen.query_one("#tok-view", TokenView).token_layout

    def ids() -> str | None:
        lay = layout()
        return copy_forms.ids_list(lay.ids.tolist()) if lay.n_tokens or lay.text else None

    def pieces() -> str | None:
        tok, lay = screen.tui.tokenizer, layout()
        if tok is None:
            return None
        return copy_forms.pieces_list(tok.token_to_piece(i) if i >= 0 else b"" for i in lay.ids.tolist())

    def details() -> str | None:
        view = screen.query_one("#tok-view", TokenView)
        lay = view.token_layout
        if not 0 <= view.cursor < lay.n_tokens:
            return None
        return copy_forms.rows_text(details_rows(lay, view.cursor, screen.tui.tokenizer, screen.tui.vocab_index))

    return [
        ("Copy the token ids", "token ids", ids),
        ("Copy the token pieces", "token pieces", pieces),
        ("Copy the selected token's details", "selected token's details", details),
    ]


def _prompt(screen: Any, *, ids: bool) -> str | None:
    prompt = screen.prompt
    if prompt is None:
        return None
    return copy_forms.ids_list(prompt.ids) if ids else prompt.rendered


def _diff(screen: Any) -> str | None:
    diff = screen.diff
    if diff is None:
        return None
    app = screen.app
    other = getattr(app, "compare_gguf", None)
    name_b = getattr(app, "compare_label", None) or (Path(other.path).name if other is not None else "B")
    return copy_forms.diff_text(diff, screen.session.name, name_b)


def _trace(screen: Any) -> str | None:
    from tui_tok.explore.explain_text import report_lines

    expl = screen.explanation
    if expl is None:
        return None
    return "\n".join(report_lines(expl, screen._piece))


def _vocab_details(screen: Any) -> str | None:
    """The Vocabulary view's token under the cursor, as its details panel lists it."""
    from tui_tok.explore.token_info import token_rows
    from tui_tok.explore.vocab_index import token_facts
    from tui_tok.ui.widgets.vocab_table import VocabTable

    table = screen.query_one("#vocab-table", VocabTable)
    index, tok = screen.tui.vocab_index, screen.tui.tokenizer
    if index is None or not 0 <= table.cursor < len(table.ids):
        return None
    token_id = int(table.ids[table.cursor])
    rows = token_rows(token_id=token_id, raw=index.pieces[token_id],
                      piece=tok.token_to_piece(token_id) if tok is not None else None,
                      kind=tok.token_kind(token_id).value if tok is not None else "?", span=None,
                      facts=token_facts(index, token_id))  # fmt: skip
    return copy_forms.rows_text(rows)


def _metadata_value(screen: Any) -> str | None:
    """The Metadata view's key under the cursor: its whole value (a template as its source)."""
    from textual.widgets import DataTable

    row = screen.query_one("#meta-table", DataTable).cursor_row
    shown = getattr(screen, "shown", [])
    if not 0 <= row < len(shown):
        return None
    return copy_forms.value_text(screen.session.gguf.fields[shown[row].key].value)
