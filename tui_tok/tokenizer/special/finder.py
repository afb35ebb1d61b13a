"""Where special-token candidates occur: the matcher behind ``special.SpecialPartitioner``.

The partition asks, again and again, "where is the leftmost place at or after here where some
candidate starts, and which is the longest one there?". A regex of every candidate answers in one
call but is slow to compile for vocabs with hundreds to thousands of user-defined tokens;
they share a few prefixes (``[PAD``, ``<|``), so a regex of the distinct prefixes finds the places
and a dict lookup per candidate length confirms them.

Leaves out what is claimed where (llama.cpp's loop): see ``special/partition.py``.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass

_PREFIX = 4
"""Candidate bytes the finder's regex looks for (fewer when that gives too many distinct prefixes)."""
_MAX_PREFIXES = 64


@dataclass(frozen=True, slots=True)
class Finder:
    """Leftmost start of any candidate at or after a position, and the longest candidate there.

    ``prefilter`` matches the first ``k`` bytes of some candidate (k <= ``_PREFIX``, chosen so
    that few distinct prefixes remain); at each place it matches, the candidate lengths that
    start with that byte are tried longest first as dict lookups. A place where no whole
    candidate starts is skipped (search again one byte later), so the result is exactly the
    leftmost occurrence, as a regex of all candidates would give.
    """

    prefilter: re.Pattern[bytes]
    texts: frozenset[bytes]
    lengths: dict[int, tuple[int, ...]]
    """First byte -> distinct lengths of the candidates starting with it, longest first."""

    @staticmethod
    def build(texts: Iterable[bytes], runs: Mapping[int, tuple[tuple[int, int], ...]]) -> Finder | None:
        """``runs``: bytes whose candidates are all runs of them (see ``_run_families``); the
        prefilter matches a whole run of such a byte, as long as the shortest candidate or longer."""
        words = frozenset(t for t in texts if t)
        if not words:
            return None
        plain = [w for w in words if w[0] not in runs]
        prefixes: set[bytes] = set()
        for k in range(_PREFIX, 0, -1):
            prefixes = {w[:k] for w in plain}
            if len(prefixes) <= _MAX_PREFIXES:
                break
        lengths: dict[int, set[int]] = {}
        for w in words:
            lengths.setdefault(w[0], set()).add(len(w))
        alts = [*map(re.escape, sorted(prefixes))]
        alts += [re.escape(bytes([c])) + b"{%d,}" % min(n for n, _ in family) for c, family in sorted(runs.items())]
        alternation = b"|".join(alts)
        return Finder(
            prefilter=re.compile(alternation, re.DOTALL),
            texts=words,
            lengths={c: tuple(sorted(ns, reverse=True)) for c, ns in lengths.items()},
        )

    def search(self, text: bytes, pos: int, lazy: Container[int] = ()) -> tuple[int, bytes | None, int] | None:
        """(start, longest candidate starting there, end of the prefilter's match) of the leftmost
        occurrence at or after ``pos``.

        Where the prefilter matched a run of a byte in ``lazy`` (a run family byte), the candidate
        is not looked up: (start, None, end of the run) (the partition resolves runs itself).
        """
        search = self.prefilter.search
        while True:
            hit = search(text, pos)
            if hit is None:
                return None
            start = hit.start()
            if text[start] in lazy:
                return start, None, hit.end()
            longest = self.longest_at(text, start)
            if longest is not None:
                return start, longest, hit.end()
            pos = start + 1

    def longest_at(self, text: bytes, start: int) -> bytes | None:
        """The longest candidate starting at ``start`` (None if none does)."""
        texts = self.texts
        for n in self.lengths.get(text[start], ()):
            piece = text[start : start + n]
            if piece in texts:
                return piece
        return None
