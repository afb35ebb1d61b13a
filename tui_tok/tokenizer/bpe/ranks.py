"""Merge ranks without building the rank dict first: a search in the joined merge list.

The ``"left right" -> rank`` dict of gemma-4's 515k merges costs most of a file's open time, while a first short text needs a handful of ranks. ``LazyRanks`` answers those from
one joined string, then hands over to the dict (``bpe/encoder.py`` builds it) once the searches have
scanned the list ``_LAZY_SCANS`` times over. Both give the same ranks.
"""

from __future__ import annotations

from collections.abc import Callable

_LAZY_SCANS = 8
"""How many times over the searches may scan the joined merges before the dict takes over."""


class LazyRanks:
    """Merge ranks by searching ``"\\0left right\\0"`` in the joined merge list: the first match
    is the lowest rank (as ``emplace`` keeps), its rank the number of separators before it.
    Frequent merges have low ranks, so hits end early; each lookup's scan is charged to a budget,
    and once it is spent lookups go to the full dict (``full()``)."""

    def __init__(self, joined: str, full: Callable[[], dict[str, int]]) -> None:
        self._joined = joined
        self._full = full
        self._budget = _LAZY_SCANS * len(joined)

    @classmethod
    def build(cls, merges: list[str], joined: str, full: Callable[[], dict[str, int]]) -> LazyRanks | None:
        """``joined`` is ``"\\0" + "\\0".join(merges) + "\\0"``; None when a merge string holds the
        NUL separator itself."""
        if joined.count("\x00") != len(merges) + 1:
            return None
        return cls(joined, full)

    def get(self, key: str, default: int) -> int:
        """The rank of ``key`` (``"left right"``), else ``default``. A key holding NUL could
        match across entries, so it goes to the dict; any other key matches whole entries only."""
        if self._budget <= 0 or "\x00" in key:
            return self._full().get(key, default)
        joined = self._joined
        pos = joined.find("\x00" + key + "\x00")
        self._budget -= len(joined) if pos < 0 else pos
        if pos < 0:
            return default
        return joined.count("\x00", 0, pos)
