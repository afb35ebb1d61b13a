"""Counts shown under the tokenized text: tokens, characters, bytes and their ratios.

>>> s = text_stats("héllo", n_tokens=2)
>>> (s.tokens, s.chars, s.bytes, s.chars_per_token)
(2, 5, 6, 2.5)
>>> s.summary()
'2 tokens · 5 chars · 6 bytes · 2.50 chars/token'
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TextStats:
    """Sizes of a text and its tokenization."""

    tokens: int
    """Token count, including BOS/EOS when they were added."""
    chars: int
    """Code points in the text."""
    bytes: int
    """UTF-8 length of the text."""

    @property
    def chars_per_token(self) -> float:
        return self.chars / self.tokens if self.tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    def summary(self) -> str:
        """One line for a status bar."""
        return (
            f"{_count(self.tokens, 'token')} · {_count(self.chars, 'char')} · {_count(self.bytes, 'byte')} · "
            f"{self.chars_per_token:.2f} chars/token"
        )


def _count(n: int, noun: str) -> str:
    """``n`` with thousands separators and ``noun`` in the right number.

    >>> _count(1, "token"), _count(244399, "token")
    ('1 token', '244,399 tokens')
    """
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def text_stats(text: str, *, n_tokens: int, n_bytes: int | None = None) -> TextStats:
    """Stats of ``text`` tokenized into ``n_tokens`` tokens (pass ``n_bytes`` if already known)."""
    if n_bytes is None:
        n_bytes = len(text.encode("utf-8", "surrogatepass"))
    return TextStats(tokens=n_tokens, chars=len(text), bytes=n_bytes)
