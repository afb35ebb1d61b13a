"""One tiling pattern over a whole text, fast: ``findall`` on a collapsed view, real words back.

A *tiling* pattern has a non-empty match at every position (its last alternative takes any one
character) and never looks before its start, so ``pattern.findall(view)`` cuts the view into
pieces that cover it, and every piece's length is its word's length. The views (``fast.collapse``,
``stdregex.collapse_text``) keep ASCII and map each non-ASCII code point to one marker, so a piece
made of ASCII already *is* its word; only pieces holding a marker are sliced from the text again.

Segments: most real text is ASCII with non-ASCII stretches. Given a ``boundary``, a text longer
than ``SEGMENT`` is cut at every *safe boundary* and neighbouring segments of the same kind are
merged; an all-ASCII group runs on the text itself (no view, no restoring) and only the others
are restored (on the benchmark corpus: a fifth of the text instead of all). A boundary is a
position right after ``\\n`` and before a character of some kind (``NEWLINE_BEFORE_*``); the
caller asserts, per pattern, that no alternative can consume such a ``\\n`` together with the
character after it, so a word always ends there. Each segment is
run ``_LOOKAHEAD`` characters past its end, so lookaheads near the boundary see what they see in
the whole text, and the pieces past the boundary are dropped again.

Leaves out: what the patterns are (``fast.py``, ``onepass.py``); byte encoding of the words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate, compress, count, repeat
from operator import contains, not_

import numpy as np

from tui_tok.tokenizer.unicode import data as ud

SEGMENT = 4096
"""Texts up to this many code points run whole; longer ones are cut at every safe boundary."""
_LOOKAHEAD = 4
"""Characters a segment is run past its end (more than any pattern here looks ahead)."""


@dataclass(frozen=True, slots=True)
class Boundary:
    """Safe cut points: right after ``\\n`` when the next code point is of an allowed kind."""

    alnum_only: bool
    """True: the next code point is an ASCII letter or digit; False: anything but llama.cpp whitespace."""

    def positions(self, cps: np.ndarray) -> np.ndarray:
        """The cut points of a text given as code points (ascending)."""
        after = np.flatnonzero(cps[:-1] == 0x0A) + 1
        nxt = cps[after]
        if self.alnum_only:
            ok = (nxt < 0x80) & _ALNUM[np.minimum(nxt, 0x7F)]
        else:
            ok = ~np.isin(nxt, _SPACES)
        return after[ok]


_SPACES = np.array(sorted(ud.WHITESPACE_CPS), dtype=np.uint32)
_ALNUM = np.array([chr(c).isascii() and chr(c).isalnum() for c in range(128)])
NEWLINE_BEFORE_ALNUM = Boundary(alnum_only=True)
"""For patterns whose ``\\n`` appears only in whitespace runs and ``[\\r\\n/]*`` tails."""
NEWLINE_BEFORE_NON_SPACE = Boundary(alnum_only=False)
"""For patterns whose ``\\n`` appears only in whitespace runs and ``[\\r\\n]*`` tails."""

View = Callable[[str], str]


def findall_tiled(
    pattern: re.Pattern[str],
    text: str,
    view: View | None,
    *,
    boundary: Boundary | None,
    ascii_marker: str = "",
) -> list[str]:
    """The words of ``text``: ``pattern.findall(view(text))`` with each piece replaced by the
    slice of ``text`` at the same place (``view=None``: the pattern runs on the text itself).
    ``boundary``: where the text may be cut into segments (see the module docstring; None: never).
    ``ascii_marker``: an ASCII character the view also uses for non-ASCII ones (llama.cpp's
    views map non-ASCII whitespace to U+000B); pieces holding it are re-sliced too.

    >>> findall_tiled(re.compile(r"[a-z\\x80]+|(?s:.)"), "hé, yo", lambda t: re.sub(r"[^\\x00-\\x7f]", "\\x80", t),
    ...               boundary=None)
    ['hé', ',', ' ', 'yo']
    """
    if view is None or text.isascii():
        return pattern.findall(text)
    collapsed = view(text)
    n = len(text)
    if boundary is None or n <= SEGMENT:
        return _restored(text, pattern.findall(collapsed), 0, ascii_marker)
    out: list[str] = []
    findall = pattern.findall
    for a, b, dirty in _groups(text, boundary):
        stop = min(b + _LOOKAHEAD, n)
        if dirty:
            pieces = _restored(text, findall(collapsed, a, stop), a, ascii_marker)
        else:  # view == text up to b; past it (lookahead only) the view's classes must be seen
            pieces = findall(text if text[b:stop].isascii() else collapsed, a, stop)
        extra = stop - b
        while extra > 0 and pieces:
            extra -= len(pieces.pop())
        if extra != 0:  # not a boundary after all (never seen: the tests cut every few characters)
            return _restored(text, findall(collapsed), 0, ascii_marker)
        out += pieces
    return out


def _groups(text: str, boundary: Boundary) -> list[tuple[int, int, bool]]:
    """``text`` cut at every safe boundary, neighbouring segments of the same kind (all ASCII or
    not) merged: (start, end, has non-ASCII) covering the text in order."""
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    bounds = boundary.positions(cps)
    if not len(bounds):
        return [(0, len(text), True)]
    edges = np.concatenate(([0], bounds, [len(text)])).astype(np.int64)
    dirty = np.zeros(len(edges) - 1, dtype=bool)
    dirty[np.searchsorted(edges, np.flatnonzero(cps > 0x7F), side="right") - 1] = True
    first = np.flatnonzero(np.concatenate(([True], dirty[1:] != dirty[:-1])))
    starts = edges[first].tolist()
    ends = [*starts[1:], len(text)]
    return list(zip(starts, ends, dirty[first].tolist()))


def _restored(text: str, pieces: list[str], offset: int, ascii_marker: str) -> list[str]:
    """``pieces`` (of the view, starting at ``offset``) with every one holding a marker re-sliced from ``text``."""
    touched = list(compress(count(), map(not_, map(str.isascii, pieces))))
    if ascii_marker:
        touched = sorted({*touched, *compress(count(), map(contains, pieces, repeat(ascii_marker)))})
    if touched:
        ends = list(accumulate(map(len, pieces), initial=offset))
        for i in touched:
            pieces[i] = text[ends[i] : ends[i + 1]]
    return pieces
