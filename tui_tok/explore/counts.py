"""How the explorer and the command line write a count: ``1 token``, ``244,399 tokens``.

Counts always get thousands separators and a noun agreeing with them; token ids, ranks and
offsets are names, not counts, and stay plain (``#76444`` is what the search box takes).

>>> counted(1, "token"), counted(244399, "token"), counted(2, "match", "matches")
('1 token', '244,399 tokens', '2 matches')
"""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` with separators and ``noun`` (``plural``, default ``noun + 's'``, unless ``n`` is 1)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
