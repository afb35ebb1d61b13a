"""``splice_layout``: the layout of an edited text from the old layout and the re-encoded stretch.

``layout_arrays`` looks at every character (a 10 MB text: numpy over 10M-long arrays, far
past a keystroke's budget); after a key only the stretch ``explore.edit.plan_edit`` re-encoded is new. Here the
old tokens, line starts and cell counts before it are kept, those after it shifted, and only
the stretch is laid out. Colour phases (``layout.line_phases``) are runs from line starts
whose halves alternate: the stretch starts a line, so its phases are its own with the halves
flipped when an odd number of runs precede it, and the tail's are the old ones, flipped when
the parity of the runs before it changed. When a condition for that does not hold (a stretch
whose first token does not start it, a tail whose first token does not start a line) the
phases are computed whole. ``splice_rows`` does the same for the wrapped rows a view keeps.
"""

from __future__ import annotations

import weakref

import numpy as np

from tui_tok.explore.layout import N_PHASES, Rows, Spliced, TokenLayout, layout_arrays, line_phases, lines_rows

_HALF = N_PHASES // 2


def splice_layout(
    old: TokenLayout,
    text: str,
    *,
    char_a: int,
    char_b_old: int,
    first: int,
    stop: int,
    mid_ids: np.ndarray,
    mid_starts: np.ndarray,
    mid_ends: np.ndarray,
    kinds_by_id: np.ndarray,
    n_bytes: int,
) -> TokenLayout:
    """The layout of ``text``: ``old``'s tokens ``[:first]``, then the tokens of the stretch
    ``text[char_a:char_b]`` (``mid_*``: byte offsets relative to it), then ``old``'s tokens
    ``[stop:]`` (which started at ``char_b_old``) shifted. ``char_a`` must start a line."""
    delta = len(text) - len(old.text)
    char_b = char_b_old + delta
    mid = layout_arrays(
        text[char_a:char_b], ids=mid_ids, starts=mid_starts, ends=mid_ends,
        kinds=kinds_by_id[mid_ids] if len(mid_ids) else np.zeros(0, dtype=np.uint8),
    )  # fmt: skip
    cat = np.concatenate
    ids = join_shifted([(old.ids[:first], 0), (mid.ids, 0), (old.ids[stop:], 0)], old.ids.dtype)
    # the old columns' type (int32 for most texts), not widened by the stretch's (an ASCII
    # stretch's are int64): 3M-long columns stay 12 MB, and no key pays a widening copy
    pos_type = old.starts.dtype if len(text) < 2**31 - 64 else np.int64
    starts = join_shifted([(old.starts[:first], 0), (mid.starts, char_a), (old.starts[stop:], delta)], pos_type)
    ends = join_shifted([(old.ends[:first], 0), (mid.ends, char_a), (old.ends[stop:], delta)], pos_type)
    kinds = join_shifted([(old.kinds[:first], 0), (mid.kinds, 0), (old.kinds[stop:], 0)], np.uint8)
    lines_old, mid_lines = old.line_starts, mid.line_starts
    at_a = char_a == 0 or text[char_a - 1] == "\n"  # a cut splice's stretch need not start a line
    tail_lines = lines_old[np.searchsorted(lines_old, char_b_old, side="right") :] + delta
    at_b = [char_b] if char_b == 0 or (char_b <= len(text) and text[char_b - 1 : char_b] == "\n") else []
    line_starts = cat((
        lines_old[: np.searchsorted(lines_old, char_a, side="left")],
        mid_lines[(mid_lines < len(mid.text)) & ((mid_lines > 0) | at_a)] + char_a,
        np.array(at_b, dtype=np.int64),
        tail_lines,
    )).astype(np.int64)  # fmt: skip
    if char_b == len(text) and len(text):  # a stretch to the end: its final line start (after a last \n) only once
        line_starts = np.unique(line_starts)
    phases = _phases(old, mid, first, stop, char_b_old) if at_a and (at_b or stop == len(old.ids)) else None
    if phases is None:
        phases = _phases_around(starts, line_starts, old.phases, first, first + len(mid.ids), stop)
    return TokenLayout(
        text=text, ids=ids, starts=starts, ends=ends, kinds=kinds, phases=phases,
        line_starts=line_starts, cells=old.cells.splice(mid.cells, char_a, char_b_old), n_bytes=n_bytes,
        edit=Spliced(weakref.ref(old), char_a, char_b_old, first, stop),
    )  # fmt: skip


def splice_rows(rows: Rows, old: TokenLayout, new: TokenLayout, *, char_a: int, char_b_old: int) -> Rows | None:
    """``wrap_rows(new)`` from ``rows`` (``old``'s, at the same width) when ``new`` is ``old``
    with ``old.text[char_a:char_b_old]`` replaced (the rest of the text the same): only the lines
    that touch the replaced stretch are wrapped again, the rows of the lines before it kept and
    those after it moved (a key in a 10 MB text: its few lines, not 240k). None when the lines
    after the stretch do not line up (then wrap whole)."""
    delta = len(new.text) - len(old.text)
    char_b = char_b_old + delta
    la = max(0, int(np.searchsorted(old.line_starts, char_a, side="right")) - 1)
    # lines starting after the stretch start after an unchanged character: lines of both texts
    lb_old = int(np.searchsorted(old.line_starts, char_b_old, side="right"))
    lb_new = int(np.searchsorted(new.line_starts, char_b, side="right"))
    if old.n_lines - lb_old != new.n_lines - lb_new or la > lb_new or la >= new.n_lines:
        return None
    mid, mid_breaks = lines_rows(new, la, lb_new, width=rows.width, wrap=rows.wrap)
    per_line = np.diff(rows.row_starts)
    line_rows = np.concatenate((per_line[:la], mid, per_line[lb_old:]))
    row_starts = np.empty(len(line_rows) + 1, dtype=np.int64)
    row_starts[0] = 0
    np.cumsum(line_rows, out=row_starts[1:])
    shift = lb_new - lb_old
    # the breaks are counted from their line's start: the lines after the stretch keep theirs
    if shift:
        breaks = {line: b for line, b in rows.breaks.items() if line < la}
        breaks.update(mid_breaks)
        breaks.update({line + shift: b for line, b in rows.breaks.items() if line >= lb_old})
    else:
        breaks = dict(rows.breaks)
        for line in range(la, lb_old):  # the few lines the edit touched (a splice re-encodes <= 100 KB)
            breaks.pop(line, None)
        breaks.update(mid_breaks)
    return Rows(width=rows.width, wrap=rows.wrap, row_starts=row_starts, breaks=breaks)


def join_shifted(parts: list[tuple[np.ndarray, int]], dtype: np.dtype | type) -> np.ndarray:
    """``concatenate([part + shift ...])`` of type ``dtype``, written straight into the result: a
    10 MB text's 3M-long columns get no full-length temporaries (``part + shift``, then the copy)."""
    out = np.empty(sum(len(part) for part, _ in parts), dtype=dtype)
    at = 0
    for part, shift in parts:
        dest = out[at : at + len(part)]
        dest[...] = part
        if shift:
            dest += shift  # in ``dtype``, after the cast: no overflow of a narrower part
        at += len(part)
    return out


def _phases(old: TokenLayout, mid: TokenLayout, first: int, stop: int, char_b_old: int) -> np.ndarray | None:
    """The spliced phases (module doc), or None when they must be computed whole."""
    if len(mid.ids) and int(mid.starts[0]) != 0:
        return None
    tail = old.phases[stop:]
    if len(tail):
        start = int(old.starts[stop])
        line = int(np.searchsorted(old.line_starts, start))
        if start != char_b_old or line >= len(old.line_starts) or int(old.line_starts[line]) != start:
            return None
        if stop and int(old.ends[stop - 1]) > start:
            return None
    # runs before the stretch: odd when the token before it is in a lower half (cumsum odd)
    odd_before = bool(first) and int(old.phases[first - 1]) < _HALF
    mid_ph = mid.phases
    if odd_before and len(mid_ph):
        mid_ph = (mid_ph + _HALF) % N_PHASES
    if len(tail):
        runs_mid = int(np.count_nonzero(np.diff(mid.phases // _HALF))) + 1 if len(mid.phases) else 0
        # the tail's first token begins a run: its half is 3 when the runs up to it are even
        runs = int(odd_before) + runs_mid + 1
        want_upper = runs % 2 == 0
        if (int(tail[0]) >= _HALF) != want_upper:
            tail = (tail + _HALF) % N_PHASES
    return np.concatenate((old.phases[:first], mid_ph, tail)).astype(np.uint8)


def _phases_around(
    starts: np.ndarray, line_starts: np.ndarray, old_phases: np.ndarray, first: int, mid_end: int, stop: int
) -> np.ndarray:
    """``line_phases(starts, line_starts)`` of the spliced tokens (old ``[:first]``, new
    ``[first:mid_end]``, old ``[stop:]``), computed only from the run holding token ``first`` to
    the first run that starts at or after ``mid_end``: the phases before are the old ones, those
    after it the old ones with their halves flipped when the parity of the runs before changed
    (a cut splice's stretch need not start a line; ``line_phases`` of 3M tokens took ~0.1 s a key)."""
    r0 = _run_start(starts, line_starts, first, back=True)
    e = _run_start(starts, line_starts, mid_end, back=False)
    local = line_phases(starts[r0:e], line_starts)  # r0 counted as a run's start: it is one (or 0)
    if r0 and len(local) and (int(local[0]) >= _HALF) == (int(old_phases[r0 - 1]) >= _HALF):
        local = (local + _HALF) % N_PHASES  # runs alternate halves
    tail = old_phases[e - mid_end + stop :]
    if len(tail):
        before = int(local[-1]) if len(local) else int(old_phases[e - 1]) if e else _HALF  # (the first run is lower)
        if (int(tail[0]) >= _HALF) == (before >= _HALF):
            tail = (tail + _HALF) % N_PHASES
    return np.concatenate((old_phases[:r0], local, tail)).astype(np.uint8, copy=False)


def _run_start(starts: np.ndarray, line_starts: np.ndarray, i: int, *, back: bool) -> int:
    """The last token ``<= i`` (``back``; 0 when none) or the first ``>= i`` (else; ``len(starts)``
    when none) that starts a line, searched in growing windows."""
    n, step = len(starts), 256
    lo, hi = (max(0, i + 1 - step), i + 1) if back else (i, min(n, i + step))
    while lo < hi:
        s = starts[lo:hi]
        at = np.minimum(np.searchsorted(line_starts, s), len(line_starts) - 1)
        found = np.flatnonzero(line_starts[at] == s)
        if len(found):
            return lo + int(found[-1] if back else found[0])
        step *= 4
        lo, hi = (max(0, lo - step), lo) if back else (hi, min(n, hi + step))
    return 0 if back else n
