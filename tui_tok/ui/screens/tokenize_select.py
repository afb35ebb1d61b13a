"""``TokenSelection``: the tokenize view's selected token, followed across its panels.

The editor's cursor, a click in the Tokens panel or on an id selects a token; the id strip and
the Token panel follow, and ``^N`` (or Enter on a token) opens it in the Vocabulary view. A
``Screen`` of its own (not a plain mixin) so that Textual finds its ``@on`` handlers.
"""

from __future__ import annotations

from typing import cast

from textual import on
from textual.widgets import TextArea
from textual.widgets.text_area import Document

from tui_tok.explore.tokenize_engine import details_rows
from tui_tok.ui.screens.base import ViewScreen
from tui_tok.ui.widgets.id_strip import IdStrip
from tui_tok.ui.widgets.token_details import TokenDetails
from tui_tok.ui.widgets.token_view import TokenView


class TokenSelection(ViewScreen):
    """The selection handlers of ``TokenizeScreen`` (``#tok-input``, ``#tok-view``, ``#tok-ids``, ``#tok-details``)."""

    @on(TextArea.SelectionChanged, "#tok-input")
    def _editor_cursor(self, event: TextArea.SelectionChanged) -> None:
        text_area = event.text_area
        view = self.query_one("#tok-view", TokenView)
        if view.token_layout.text and len(view.token_layout.text) == len(text_area.text):
            view.select_char(cast(Document, text_area.document).get_index_from_location(event.selection.end))

    @on(TokenView.Selected)
    def _token_selected(self, event: TokenView.Selected) -> None:
        self.query_one("#tok-ids", IdStrip).cursor = event.index
        self._describe(event.index)

    @on(IdStrip.Clicked)
    def _id_clicked(self, event: IdStrip.Clicked) -> None:
        self.query_one("#tok-view", TokenView).cursor = event.index  # posts Selected: the strip and details follow

    @on(TokenView.OpenRequested)
    def _open(self, event: TokenView.OpenRequested) -> None:
        if event.token_id < 0:
            self.notify("This token is llama.cpp's null id (-1): it has no vocabulary entry.", severity="warning")
            return
        self.tui.show_token_in_vocab(event.token_id)

    def action_open_in_vocab(self) -> None:
        self.query_one("#tok-view", TokenView).action_open()

    def action_focus_tokens(self) -> None:
        self.query_one("#tok-view", TokenView).focus()

    def _describe(self, index: int) -> None:
        layout = self.query_one("#tok-view", TokenView).token_layout
        if 0 <= index < layout.n_tokens:
            rows = details_rows(layout, index, self.tui.tokenizer, self.tui.vocab_index)
            self.query_one("#tok-details", TokenDetails).show_rows(rows)
