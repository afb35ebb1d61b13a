"""Where the pre-tokenizer cut the text, as character offsets the Tokens view can draw.

The tokenize view's "chunk cuts" toggle (``^R``) underlines every other chunk of a line, so each
cut the pre-tokenizer made (and each special-token fragment edge) is a change of underline.
The cuts come from the engine's own explanation (``tokenizer.explain``: the same splitter that
produced the ids), computed in a worker when typing pauses; ``chunk_marks`` turns its byte
offsets into characters of the shown text.

Until a new explanation arrives the view keeps the last one, carried over the edit
(``carry_marks``: cuts before the edited stretch stay, cuts after it move by the length
change, cuts inside it are dropped), so the underlines do not flicker off on each keystroke.
Finding the edited stretch compares the two texts by halving ranges (``common_prefix``), so
the bytes compared add up to about one text length, not one per step.

The underline is counted from each line's start (``row_cuts``), so a cut added or removed on
one line changes the drawing of that line only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui_tok.tokenizer.explain import Explanation

NO_CUTS = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, slots=True, eq=False)
class ChunkMarks:
    """The chunk starts of one text."""

    text: str
    """The text the offsets index (the tokenize view's text, without BOS/EOS)."""
    starts: np.ndarray
    """int64 sorted character offsets, each > 0, where a chunk or a fragment begins."""


def char_offsets(text: str, byte_offsets: np.ndarray) -> np.ndarray:
    """Character holding each UTF-8 byte offset of ``text`` as the tokenizer encodes it (a lone
    surrogate U+DC80-DCFF is one raw byte, other surrogates three bytes: ``layout.layout_arrays``);
    an offset at the end maps to ``len(text)``.

    >>> char_offsets("aé b", np.array([0, 1, 3, 4, 5])).tolist()
    [0, 1, 2, 3, 4]
    """
    if text.isascii():
        return np.clip(byte_offsets, 0, len(text))
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    escaped = (cps >= 0xDC80) & (cps <= 0xDCFF)
    lengths = (1 + (cps >= 0x80) + (cps >= 0x800) + (cps >= 0x10000) - 2 * escaped).astype(np.int64)
    ends = np.cumsum(lengths)
    # the character whose bytes hold the offset: the number of characters ending at or before it
    return np.searchsorted(ends, np.clip(byte_offsets, 0, int(ends[-1]) if len(ends) else 0), side="right")


def chunk_marks(expl: Explanation, text: str) -> ChunkMarks:
    """The starts of ``expl``'s chunks and fragments in ``text`` (the text it explains)."""
    offsets: list[int] = []
    for frag in expl.fragments:
        offsets.append(frag.start)
        offsets.extend(chunk.start for chunk in frag.chunks)
    starts = np.unique(char_offsets(text, np.asarray(offsets, dtype=np.int64)))
    return ChunkMarks(text, starts[starts > 0].astype(np.int64))


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix of ``a`` and ``b``.

    >>> common_prefix("hello world", "hello there")
    6
    """
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a.startswith(b[lo:mid], lo):  # a[lo:mid] == b[lo:mid]; a[:lo] == b[:lo] already
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the longest common suffix of ``a`` and ``b``, at most ``limit``.

    >>> common_suffix("say hello", "you hello", 9)
    6
    """
    lo, hi = 0, max(0, min(limit, len(a), len(b)))
    na, nb = len(a), len(b)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a.endswith(b[nb - mid : nb - lo], 0, na - lo):  # the next stretch of the suffix agrees
            lo = mid
        else:
            hi = mid - 1
    return lo


def carry_marks(marks: ChunkMarks, text: str) -> ChunkMarks:
    """``marks`` moved onto ``text``, an edit of ``marks.text``: the stand-in shown until the
    explanation of ``text`` arrives.

    >>> carry_marks(ChunkMarks("ab cd ef", np.array([2, 5])), "ab cxd ef").starts.tolist()
    [2, 6]
    """
    old = marks.text
    if text is old or text == old:
        return marks if text is old else ChunkMarks(text, marks.starts)
    prefix = common_prefix(old, text)
    suffix = common_suffix(old, text, min(len(old), len(text)) - prefix)
    starts = marks.starts
    tail_from = len(old) - suffix
    keep_head = starts[: int(np.searchsorted(starts, prefix, side="left"))]
    tail = starts[int(np.searchsorted(starts, tail_from, side="left")) :]
    moved = np.concatenate((keep_head, tail + (len(text) - len(old))))
    return ChunkMarks(text, moved[moved > 0])


def row_cuts(
    cuts: np.ndarray, line_starts: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> list[tuple[int, tuple[int, ...]]]:
    """Per row ``[starts[k], ends[k])``: whether it begins underlined (1) or not (0), and the
    cuts inside it relative to its start (where the underline flips).

    A line's first chunk is not underlined; each cut after the line's start flips it.

    >>> row_cuts(np.array([3, 6, 9]), np.array([0, 8]), np.array([0, 4, 8]), np.array([4, 8, 12]))
    [(0, (3,)), (1, (2,)), (0, (1,))]
    """
    if not len(starts):
        return []
    line_of = np.searchsorted(line_starts, starts, side="right") - 1
    line_start = line_starts[np.maximum(line_of, 0)]
    before_line = np.searchsorted(cuts, line_start, side="right")
    first = np.searchsorted(cuts, starts, side="right")  # cuts in (line start, row start] set the parity
    stop = np.searchsorted(cuts, ends, side="left")
    parity = ((first - before_line) % 2).tolist()
    lo = int(first[0])
    values = cuts[lo : max(lo, int(stop.max()))].tolist()  # the visible rows' cuts only, read once
    out: list[tuple[int, tuple[int, ...]]] = []
    for k, (s, a, b) in enumerate(zip(starts.tolist(), first.tolist(), stop.tolist())):
        out.append((parity[k], tuple([v - s for v in values[a - lo : b - lo]])))
    return out
