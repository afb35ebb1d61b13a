"""What a view screen may ask of the app that hosts it, as a protocol.

Screens are modes of ``TuiTokApp``; naming the app class here would make every screen import
``ui/app.py``, which imports every screen (an import cycle). ``TuiTokApp`` satisfies this
protocol; mypy checks that where the app lists its modes.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

from tui_tok.explore.vocab_index import VocabIndex
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.ui.session import Session


class ExplorerHost(Protocol):
    """The open file's state that the app shares with its views."""

    session: Session
    """The open GGUF file and what is read from it."""
    tokenizer: Tokenizer | None
    """The built tokenizer (None while building or when it cannot be built)."""
    tokenizer_error: str | None
    """Why the tokenizer could not be built."""
    vocab_index: VocabIndex | None
    """Searchable vocabulary (None while it is being built)."""
    ids: Sequence[int]
    """Ids of the text in the tokenize view (the stream view replays them)."""
    text: str
    """The text, as last typed in the tokenize view or the compare view (a reactive: views that
    show it watch it, and set it when it is edited in them)."""
    pending_vocab_token: int | None
    """A token the vocabulary view should put under its cursor when it next shows."""
    show_timings: bool
    """Show how long tokenizing and searching took (off for deterministic snapshots)."""
    keep_cr_in_pastes: bool
    """Keep a paste's CR instead of making it LF (the tokenize view's toggle)."""
    text_idle: threading.Event
    """Clear while a long text is being tokenized in full (the tokenize view's worker): the
    vocabulary index and the lint wait for it, so they do not compete for the interpreter."""
    pending_metadata_key: tuple[str, int | None, int | None] | None
    """A metadata key (and template line) the metadata view should show when it next shows."""

    def note_activity(self) -> None:
        """Someone typed, or a long text's result was shown: the background builds wait for a pause."""

    def show_token_in_vocab(self, token_id: int) -> None:
        """Switch to the vocabulary view with ``token_id`` under the cursor."""

    def show_key_in_metadata(self, key: str, line: int | None = None, column: int | None = None) -> None:
        """Switch to the metadata view on ``key`` (and ``line`` of its value, ``column`` marked)."""
