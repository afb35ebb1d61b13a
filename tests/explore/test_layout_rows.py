"""Vectorised row helpers of ``explore.layout`` against their plain definitions."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tui_tok.explore.layout import (
    N_PHASES,
    flow_rows,
    layout_tokens,
    line_phases,
    reflow_rows,
    row_span,
    row_spans,
    wrap_rows,
)
from tui_tok.tokenizer.core.types import Token, TokenKind

TEXTS = st.text(alphabet="ab \n\t日🙂é", max_size=80)


def _greedy(widths: list[int], width: int) -> list[int]:
    """The definition: start a new row when the next item would overflow a non-empty one."""
    starts, used = [0], 0
    for i, w in enumerate(widths):
        if used and used + w > width:
            starts.append(i)
            used = 0
        used += w
    return starts + [len(widths)] if widths else [0, 0]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 15), max_size=60), st.integers(1, 25))
def test_flow_rows_is_the_greedy_wrap(widths: list[int], width: int) -> None:
    assert flow_rows(widths, width=width).tolist() == _greedy(widths, width)


@settings(max_examples=150, deadline=None)
@given(TEXTS, st.integers(2, 14), st.integers(0, 5), st.integers(0, 40))
def test_row_spans_equal_row_span(text: str, width: int, first: int, count: int) -> None:
    lay = layout_tokens(text, [])
    rows = wrap_rows(lay, width=width)
    starts, ends = row_spans(lay, rows, first, count)
    expected = [row_span(lay, rows, y) for y in range(first, min(first + count, rows.n_rows))]
    assert list(zip(starts.tolist(), ends.tolist())) == expected


@settings(max_examples=150, deadline=None)
@given(TEXTS, st.lists(st.integers(0, 200), max_size=25))
def test_line_phases_restart_at_lines_and_differ_between_neighbours(text: str, cuts: list[int]) -> None:
    data = text.encode()
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    tokens = [Token(i, a, b, TokenKind.NORMAL) for i, (a, b) in enumerate(zip(points, points[1:]))]
    lay = layout_tokens(text, tokens)
    phases = lay.phases.tolist()
    line_starts = set(lay.line_starts.tolist())
    runs = 0
    for i, (start, phase) in enumerate(zip(lay.starts.tolist(), phases)):
        assert 0 <= phase < N_PHASES
        if i:
            assert phase != phases[i - 1]  # neighbours always differ, across line starts too
        if i == 0 or start in line_starts:
            runs += 1
            assert phase == (0 if runs % 2 else 3)
        else:  # continues the run of the token before it, in the same half
            assert phase == phases[i - 1] // 3 * 3 + (phases[i - 1] + 1) % 3


def test_line_phases_example() -> None:
    assert line_phases(np.array([0, 2, 3, 5, 7]), np.array([0, 5])).tolist() == [0, 1, 2, 3, 4]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(1, 9), max_size=50),
    st.lists(st.tuples(st.integers(0, 60), st.integers(0, 5), st.lists(st.integers(1, 9), max_size=5)), max_size=3),
    st.integers(1, 20),
    st.integers(1, 12),
)
def test_reflow_after_edits_equals_a_fresh_flow(
    old: list[int], edits: list[tuple[int, int, list[int]]], width: int, window: int
) -> None:
    new = list(old)
    for at, length, items in edits:
        at = min(at, len(new))
        new[at : at + length] = items
    starts = flow_rows(old, width=width)
    got = reflow_rows(starts, np.array(old, dtype=np.int64), np.array(new, dtype=np.int64), width=width, window=window)
    assert got.tolist() == flow_rows(new, width=width).tolist()
