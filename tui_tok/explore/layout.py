"""Where each token of a tokenization sits in the shown text: the span colouring plan.

The tokenizer reports byte spans into the UTF-8 input; the screen works in characters and
rows. ``layout_tokens`` converts once (vectorised, so a 1 MB text costs milliseconds) and
the view then asks only for the rows it shows (``row_segments``), so nothing here is
proportional to the text per repaint. Lines wrap by cells: a character in U+3000-U+D7FF
(CJK, kana, Hangul) or U+10000-U+3FFFF (emoji ...) counts two cells, an invisible one the
cells of its drawn code (``display.shown_text``: ``⟨200B⟩`` is six), others one (a cheap,
vectorised stand-in for East-Asian width). Rows hold ``width - 1`` cells of character
starts, so a wide character beginning in the last column still fits. Does not pick colours: it hands back token indices, the
``TokenKind`` code of each token and its *phase* (its position in the run of tokens since
the last token that begins a line); the UI maps them to styles. Colouring by phase rather than
by token index keeps neighbours on a row different while an edit recolours only its own line:
by index, one token more near the top would shift the colour of every token below it, and
every row would have to be drawn again.

>>> from tui_tok.tokenizer.core.types import Token, TokenKind
>>> lay = layout_tokens("ab\\ncd", [Token(5, 0, 2, TokenKind.NORMAL), Token(6, 2, 5, TokenKind.NORMAL)])
>>> rows = wrap_rows(lay, width=80)
>>> [row_segments(lay, rows, y) for y in range(rows.n_rows)]
[[Segment(start=0, end=2, token=0), Segment(start=2, end=3, token=1)], [Segment(start=3, end=5, token=1)]]
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np

from tui_tok.explore.cells import Cells
from tui_tok.explore.display import INVISIBLE, invisible_width
from tui_tok.explore.flow import flow_rows, reflow_rows  # noqa: F401 - re-exported: the id strip's wrapping lived here
from tui_tok.tokenizer.core.tokens import Tokens, token_columns
from tui_tok.tokenizer.core.types import Token, TokenKind

KIND_CODES: dict[TokenKind, int] = {
    TokenKind.NORMAL: 0,
    TokenKind.SPECIAL: 1,
    TokenKind.BYTE: 2,
    TokenKind.UNKNOWN: 3,
    TokenKind.USER_DEFINED: 4,
}
"""Small integer per kind, stored in ``TokenLayout.kinds``."""

KIND_NAMES: tuple[str, ...] = tuple(k.value for k in KIND_CODES)
"""Inverse of ``KIND_CODES`` by code: ``KIND_NAMES[2] == 'byte'``."""


@dataclass(frozen=True, slots=True)
class Spliced:
    """How a layout was made from another by an edit (``layout_splice``): ``base``'s text with
    ``[char_a, char_b_old)`` replaced. A view showing ``base`` re-wraps only around the edit
    (``splice_rows``); a weak reference, so a chain of edits keeps no old layout alive."""

    base: weakref.ref[TokenLayout]
    char_a: int
    char_b_old: int
    first: int
    """``base``'s tokens ``[:first]`` are this layout's first tokens."""
    stop: int
    """``base``'s tokens ``[stop:]`` are this layout's last tokens."""


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class TokenLayout:
    """A text and its tokens in character coordinates."""

    text: str
    """The tokenized text."""
    ids: np.ndarray
    """int32 token id per token (including BOS/EOS, which cover no text): a 10 MB text's 3M ids
    are 12 MB, and a key keeps two layouts alive."""
    starts: np.ndarray
    """int32 (int64 past 2**31 characters) first character of each token (a byte-fallback token gets
    the character it is part of); int32 halves a 10 MB text's 3M-token columns."""
    ends: np.ndarray
    """int32 (int64 past 2**31) one past the last character of each token (``== starts`` for BOS/EOS)."""
    kinds: np.ndarray
    """uint8 ``KIND_CODES`` per token."""
    phases: np.ndarray
    """uint8 colour phase of each token, 0 to ``N_PHASES`` - 1: neighbours always differ, and
    an edit inside a line changes no other line's phases (``line_phases``)."""
    line_starts: np.ndarray
    """int64 character index where each line starts; a line includes its trailing newline."""
    cells: Cells
    """The cells taken by the characters before each character (``explore.cells``)."""
    n_bytes: int
    """UTF-8 length of ``text`` as the tokenizer encodes it (a lone surrogate U+DC80-DCFF is one raw byte)."""
    edit: Spliced | None = None
    """Set when this layout was spliced from another (``explore.layout_splice``)."""

    @property
    def n_tokens(self) -> int:
        return len(self.ids)

    @property
    def n_lines(self) -> int:
        return len(self.line_starts)

    def line_end(self, line: int) -> int:
        return int(self.line_starts[line + 1]) if line + 1 < len(self.line_starts) else len(self.text)


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of characters ``[start, end)`` covered by token ``token`` (-1: no token)."""

    start: int
    end: int
    token: int


@dataclass(frozen=True, slots=True, eq=False)
class Rows:
    """The wrapped rows of a ``TokenLayout`` at one width."""

    width: int
    """The width asked for."""
    wrap: int
    """Cells of character starts per row (``width - 1``)."""
    row_starts: np.ndarray
    """int64 first row of each line, plus the total row count at the end."""
    breaks: dict[int, np.ndarray] = field(default_factory=dict)
    """Lines holding a character drawn wider than two cells (``⟨200D⟩``), wrapped greedily so
    that no such code is cut at the row's end: the line -> the first character of each of its rows,
    counted from the line's start (so an edit above moves no array, only the keys when lines come
    or go: ``layout_splice.splice_rows``)."""

    @property
    def n_rows(self) -> int:
        return int(self.row_starts[-1])


def kind_codes(kinds: Sequence[TokenKind]) -> np.ndarray:
    """``KIND_CODES`` per token id, from ``Tokenizer.token_kinds()`` (whose last entry is the
    null id -1's, so the codes index the same way).

    >>> kind_codes([TokenKind.NORMAL, TokenKind.SPECIAL, TokenKind.UNKNOWN]).tolist()
    [0, 1, 3]
    """
    return np.fromiter(map(KIND_CODES.__getitem__, kinds), dtype=np.uint8, count=len(kinds))


def layout_tokens(text: str, tokens: Sequence[Token], *, kinds_by_id: np.ndarray | None = None) -> TokenLayout:
    """Convert ``tokens`` (byte spans into ``text.encode()``) to character spans and lines.

    ``kinds_by_id`` (from ``kind_codes``) saves reading each token's ``kind``.
    """
    n = len(tokens)
    ids, bstart, bend = token_columns(tokens)
    if kinds_by_id is not None:
        kinds = kinds_by_id[ids] if n else np.zeros(0, dtype=np.uint8)
    else:  # a ``Tokens`` reads each kind from its table, building no Token
        token_kinds = (
            map(tokens.kind_of, ids.tolist()) if isinstance(tokens, Tokens) else map(attrgetter("kind"), tokens)
        )
        kinds = np.fromiter(map(KIND_CODES.__getitem__, token_kinds), dtype=np.uint8, count=n)
    return layout_arrays(text, ids=ids, starts=bstart, ends=bend, kinds=kinds)


def layout_arrays(
    text: str, *, ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, kinds: np.ndarray
) -> TokenLayout:
    """``layout_tokens`` for a tokenization already held as columns (byte spans)."""
    ids = ids.astype(np.int32, copy=False)  # below 2**31: a vocabulary of 2**31 tokens would not fit in memory
    bstart, bend = starts, ends
    if text.isascii():  # one byte, one character, one cell
        raw = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
        n_bytes = len(raw)
        bstart = np.clip(bstart, 0, n_bytes)
        bend = np.clip(bend, bstart, n_bytes)
        starts = bstart
        ends = np.where(bend > bstart, np.maximum(bend - 1, 0) + 1, starts)
        line_starts = np.concatenate(([0], np.flatnonzero(raw == 0x0A) + 1)).astype(np.int64)
        cells = Cells.plain(len(text))
    else:
        cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        # UTF-8 length of each character as the tokenizer encodes it: a lone surrogate
        # U+DC80-DCFF is one raw byte (surrogateescape), other surrogates three bytes
        # (one byte per character and no byte -> character table: 10 MB of text is 10M characters)
        lengths = np.ones(len(cps), dtype=np.uint8)
        for bound in (0x80, 0x800, 0x10000):
            lengths += cps >= bound
        lengths -= 2 * ((cps >= 0xDC80) & (cps <= 0xDCFF)).view(np.uint8)
        byte_ends = np.cumsum(lengths, dtype=np.int32 if len(cps) < 2**29 else np.int64)
        del lengths
        n_bytes = int(byte_ends[-1]) if len(byte_ends) else 0
        line_starts = np.concatenate(([0], np.flatnonzero(cps == 0x0A) + 1)).astype(np.int64)
        widths = np.ones(len(cps), dtype=np.uint8)
        widths += ((cps >= 0x3000) & (cps < 0xD800)) | ((cps >= 0x10000) & (cps < 0x40000))
        for pos in _invisible_positions(
            cps
        ).tolist():  # drawn as a code (shown_text): as many cells as it has characters
            widths[pos] = invisible_width(text[pos])
        del cps  # before the spans' arrays: a 10 MB text's code points are 40 MB
        cells = Cells.of_widths(widths)
        del widths
        bstart = np.clip(bstart, 0, n_bytes)
        bend = np.clip(bend, bstart, n_bytes)
        # byte -> the character holding it: the characters ending at or before it
        # (needles of the table's own type: else numpy converts the 10M-long table on every call)
        # (in slices of 1M tokens: searchsorted answers int64, which for 3M tokens are 24 MB temporaries)
        pos_type = _cells_type(len(byte_ends))
        starts = np.empty(len(bstart), dtype=pos_type)
        ends = np.empty(len(bstart), dtype=pos_type)
        for at in range(0, len(bstart), 1 << 20):
            s, e = bstart[at : at + (1 << 20)], bend[at : at + (1 << 20)]
            first_char = np.searchsorted(byte_ends, s.astype(byte_ends.dtype, copy=False), side="right")
            starts[at : at + len(s)] = first_char
            # end: the character holding the last byte, plus one; empty spans stay empty
            last_char = np.searchsorted(
                byte_ends, np.maximum(e - 1, 0).astype(byte_ends.dtype, copy=False), side="right"
            )
            last_char += 1
            ends[at : at + len(s)] = np.where(e > s, last_char, first_char)
        del byte_ends
    return TokenLayout(
        text=text,
        ids=ids,
        starts=starts,
        ends=ends,
        kinds=kinds,
        phases=line_phases(starts, line_starts),
        line_starts=line_starts,
        cells=cells,
        n_bytes=n_bytes,
    )


_INVISIBLE_BMP: np.ndarray | None = None


def _cells_type(most: int) -> type:
    """int32 for character positions when they fit (a 10 MB text's 3M-token columns: 12 MB instead of 24), else int64."""
    return np.int32 if most < 2**31 - 64 else np.int64


def _invisible_positions(cps: np.ndarray) -> np.ndarray:
    """Where ``display.INVISIBLE`` matches (one character each), found with a table rather than
    a regex scan of the whole text (which would hold the interpreter for a 10 MB text)."""
    global _INVISIBLE_BMP
    if _INVISIBLE_BMP is None:
        table = np.zeros(0x10000, dtype=bool)
        table[[m.start() for m in INVISIBLE.finditer("".join(map(chr, range(0x10000))))]] = True
        _INVISIBLE_BMP = table
    # past U+FFFF reads U+FFFF's entry (False); in slices, as numpy converts the indices to int64
    # (a 10 MB text's whole would be an 80 MB temporary)
    hits = np.empty(len(cps), dtype=bool)
    for at in range(0, len(cps), 1 << 20):
        _INVISIBLE_BMP.take(cps[at : at + (1 << 20)], mode="clip", out=hits[at : at + (1 << 20)])
    astral = cps >= 0x10000
    if astral.any():
        unique = np.unique(cps[astral])
        odd = [cp for cp in unique.tolist() if INVISIBLE.match(chr(cp))]
        if odd:
            hits |= np.isin(cps, np.array(odd, dtype=np.uint32))
    return np.flatnonzero(hits)


N_PHASES = 6
"""Colour phases: a run of tokens (from one that starts a line to the next such token) cycles
through one half, 0-2 or 3-5, and consecutive runs take alternate halves."""


def line_phases(starts: np.ndarray, line_starts: np.ndarray) -> np.ndarray:
    """Each token's colour phase (0 to ``N_PHASES`` - 1) from character ``starts``.

    A token that starts where a line starts begins a run; within a run phases cycle through
    three values, and runs alternate between 0-2 and 3-5. So any two neighbours differ, also
    across a line start (the id strip shows them side by side), and an edit inside a line
    changes no other line's phases; adding or removing a line start flips the runs after it.

    >>> line_phases(np.array([0, 2, 3, 5, 7, 8, 9]), np.array([0, 5])).tolist()
    [0, 1, 2, 3, 4, 5, 3]
    """
    n = len(starts)
    if not n:
        return np.zeros(0, dtype=np.uint8)
    # written for a 10 MB text's 3M tokens: int32 indices and few temporaries at a time
    at = np.searchsorted(line_starts, starts)
    np.minimum(at, len(line_starts) - 1, out=at)
    begins_line = line_starts[at] == starts
    del at
    begins_line[0] = True
    index_type = np.int32 if n < 2**31 else np.int64
    index: np.ndarray = np.arange(n, dtype=index_type)
    run_start = np.where(begins_line, index, 0).astype(index_type, copy=False)
    np.maximum.accumulate(run_start, out=run_start)
    index -= run_start
    del run_start
    half = N_PHASES // 2
    index %= half
    phases = index.astype(np.uint8)
    del index
    phases += half * (np.cumsum(begins_line, dtype=index_type) % 2 == 0).view(np.uint8)
    return phases


def wrap_rows(layout: TokenLayout, *, width: int) -> Rows:
    """Wrap every line into rows of ``width`` cells.

    Rows hold ``width - 1`` cells of character starts (a grid, by division); a line with a
    character drawn as a code wider than two cells is wrapped greedily instead (``Rows.breaks``),
    so the code moves to the next row whole rather than being cut at the right edge.
    """
    wrap = max(1, width - 1)
    rows, breaks = lines_rows(layout, 0, layout.n_lines, width=width, wrap=wrap)
    row_starts = np.concatenate(([0], np.cumsum(rows))).astype(np.int64)
    return Rows(width=width, wrap=wrap, row_starts=row_starts, breaks=breaks)


def lines_rows(
    layout: TokenLayout, lo: int, hi: int, *, width: int, wrap: int
) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """The row count of lines ``lo .. hi - 1`` and the greedy breaks of those that need them."""
    starts = layout.line_starts[lo:hi]
    ends = (
        np.append(layout.line_starts[lo + 1 : hi + 1], len(layout.text))
        if hi >= layout.n_lines
        else layout.line_starts[lo + 1 : hi + 1]
    )
    cells = layout.cells
    # a line's rows: where its last character starts, in rows of `wrap` cells
    last = np.maximum(ends - 1, starts)
    rows = np.where(ends > starts, (cells.take(last) - cells.take(starts)) // wrap + 1, 1)
    breaks: dict[int, np.ndarray] = {}
    if hi > lo:
        a, b = int(starts[0]), int(ends[-1])
        coded = _coded_chars(layout, a, b)
        if len(coded):
            for line in np.unique(np.searchsorted(layout.line_starts, coded, side="right") - 1).tolist():
                breaks[line] = _greedy_breaks(layout, line, coded, width=width, wrap=wrap)
                rows[line - lo] = len(breaks[line])
    return rows, breaks


def _coded_chars(layout: TokenLayout, a: int = 0, b: int | None = None) -> np.ndarray:
    """Characters of ``[a, b)`` drawn wider than two cells (``display.invisible_form``)."""
    return layout.cells.coded(a, len(layout.text) if b is None else b)


def _greedy_breaks(layout: TokenLayout, line: int, coded: np.ndarray, *, width: int, wrap: int) -> np.ndarray:
    """The first character of each row of ``line`` (from the line's start): a row takes the characters
    starting in its first ``wrap`` cells, and ends before a code (``coded``) that would run past ``width``."""
    cells = layout.cells
    ls, le = int(layout.line_starts[line]), layout.line_end(line)
    out = [ls]
    s = ls
    while s < le:
        c0 = cells.before(s)
        e = min(le, cells.char_at(c0 + wrap))
        j = int(np.searchsorted(coded, s, side="left"))
        while j < len(coded) and coded[j] < e:
            at = int(coded[j])
            if cells.before(at + 1) > c0 + width:
                e = max(at, s + 1)
                break
            j += 1
        e = max(e, s + 1)
        if e >= le:
            break
        out.append(e)
        s = e
    return np.asarray(out, dtype=np.int64) - ls


def _line_of_row(layout: TokenLayout, rows: Rows, y: int) -> int:
    line = int(np.searchsorted(rows.row_starts, y, side="right")) - 1
    return min(max(line, 0), layout.n_lines - 1)


def row_span(layout: TokenLayout, rows: Rows, y: int) -> tuple[int, int]:
    """Character range ``[start, end)`` shown on row ``y``."""
    line = _line_of_row(layout, rows, y)
    k = y - int(rows.row_starts[line])
    ls, le = int(layout.line_starts[line]), layout.line_end(line)
    b = rows.breaks.get(line)
    if b is not None:
        k = min(max(k, 0), len(b) - 1)
        return ls + int(b[k]), ls + int(b[k + 1]) if k + 1 < len(b) else le
    base = layout.cells.before(ls)
    start, end = layout.cells.chars_at(np.array([base + k * rows.wrap, base + (k + 1) * rows.wrap])).tolist()
    start, end = min(max(start, ls), le), min(max(end, ls), le)
    return start, max(start, end)


def row_spans(layout: TokenLayout, rows: Rows, first: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``row_span`` of rows ``first .. first + count - 1`` (clipped to the rows there are), as two arrays.

    One vectorised pass, for a view that needs every visible row's span on each keystroke.
    Searches the whole text's cells (they increase strictly, so a search from a line's first
    cell lands inside that line).
    """
    y = np.arange(max(0, first), max(0, min(first + count, rows.n_rows)), dtype=np.int64)
    if not len(y):
        return y, y
    line = np.clip(np.searchsorted(rows.row_starts, y, side="right") - 1, 0, layout.n_lines - 1)
    k = y - rows.row_starts[line]
    ls = layout.line_starts[line]
    le = np.append(layout.line_starts[1:], len(layout.text))[line]
    base = layout.cells.take(ls)
    start = np.minimum(layout.cells.chars_at(base + k * rows.wrap), le)
    end = np.minimum(layout.cells.chars_at(base + (k + 1) * rows.wrap), le)
    if rows.breaks:  # the few rows of greedily wrapped lines
        for at in [i for i, n in enumerate(line.tolist()) if n in rows.breaks]:
            start[at], end[at] = row_span(layout, rows, int(y[at]))
    return start, np.maximum(start, end)


def row_of_char(layout: TokenLayout, rows: Rows, char: int) -> int:
    """The row showing character ``char``."""
    line = int(np.searchsorted(layout.line_starts, char, side="right")) - 1
    line = min(max(line, 0), layout.n_lines - 1)
    char = min(max(char, 0), len(layout.text))
    b = rows.breaks.get(line)
    if b is not None:
        return (
            int(rows.row_starts[line]) + int(np.searchsorted(b, char - int(layout.line_starts[line]), side="right")) - 1
        )
    rel = layout.cells.before(char) - layout.cells.before(int(layout.line_starts[line]))
    return int(rows.row_starts[line]) + rel // rows.wrap


def row_segments(layout: TokenLayout, rows: Rows, y: int) -> list[Segment]:
    """Runs of row ``y``, each tagged with the token covering it (first token wins an overlap)."""
    if y < 0 or y >= rows.n_rows:
        return []
    start, end = row_span(layout, rows, y)
    return segments_between(layout, start, end)


def segments_between(layout: TokenLayout, start: int, end: int) -> list[Segment]:
    """Runs covering characters ``[start, end)`` tagged with token indices."""
    out: list[Segment] = []
    pos = start
    # needles of the columns' type (a Python int would make numpy convert a 3M-long int32 column)
    i = int(np.searchsorted(layout.ends, layout.ends.dtype.type(start), side="right"))
    # tokens from i that start before `end`; starts are sorted, so one searchsorted bounds them
    # (read as Python ints in one go: indexing numpy arrays per token costs more than the loop)
    n = max(i, int(np.searchsorted(layout.starts, layout.starts.dtype.type(end), side="left")))
    starts = layout.starts[i:n].tolist()
    ends = layout.ends[i:n].tolist()
    first = i
    while pos < end and i < n:
        s = starts[i - first]
        if s >= end:
            break
        e = ends[i - first]
        if e <= pos:  # empty (BOS) or already painted by an overlapping byte token
            i += 1
            continue
        if s > pos:
            out.append(Segment(pos, s, -1))
            pos = s
        stop = min(e, end)
        out.append(Segment(pos, stop, i))
        pos = stop
        i += 1
    if pos < end:
        out.append(Segment(pos, end, -1))
    return out


def token_at(layout: TokenLayout, char: int) -> int:
    """Index of the token covering character ``char`` (-1 when none does)."""
    i = int(np.searchsorted(layout.ends, layout.ends.dtype.type(char), side="right"))
    while i < layout.n_tokens and layout.ends[i] <= layout.starts[i]:
        i += 1  # skip empty tokens
    if i < layout.n_tokens and layout.starts[i] <= char < layout.ends[i]:
        return i
    return -1
