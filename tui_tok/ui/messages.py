"""App-wide messages: the tokenizer and the vocabulary index arriving from background workers.

Widget-specific messages are nested in their widgets (``TokenView.Selected`` ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from tui_tok.explore.lint import LintReport
    from tui_tok.explore.vocab_index import VocabIndex
    from tui_tok.tokenizer.tokenizer import Tokenizer


@dataclass
class TokenizerLoaded(Message):
    """The background build of the tokenizer finished (``tokenizer`` None when it failed)."""

    tokenizer: Tokenizer | None
    error: str | None
    seconds: float


@dataclass
class VocabIndexBuilt(Message):
    """The searchable vocabulary table is ready."""

    index: VocabIndex
    seconds: float


@dataclass
class LintDone(Message):
    """The lint worker finished."""

    report: LintReport
