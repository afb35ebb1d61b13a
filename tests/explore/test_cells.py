"""``explore.cells.Cells`` (runs of wide characters) against the dense table it replaces:
``cells_before = [0, *cumsum(widths)]`` and ``searchsorted(cells_before, c, side="left")``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tui_tok.explore import cells as cells_module
from tui_tok.explore.cells import Cells

WIDTHS = st.lists(st.sampled_from([1, 1, 1, 2, 2, 4, 6]), max_size=60)


def _dense(widths: list[int]) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(np.array(widths, dtype=np.int64))))


@pytest.fixture(autouse=True)
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cells_module, "SLICE", 7)  # runs across the slices of ``of_widths``


@settings(max_examples=400, deadline=None)
@given(WIDTHS)
def test_before_and_chars_at_are_the_dense_tables(widths: list[int]) -> None:
    cells = Cells.of_widths(np.array(widths, dtype=np.uint8))
    dense = _dense(widths)
    assert cells.dense().tolist() == dense.tolist()
    assert [cells.before(i) for i in range(len(widths) + 1)] == dense.tolist()
    assert cells.total == int(dense[-1])
    probe = np.arange(int(dense[-1]) + 4)
    want = np.searchsorted(dense, probe, side="left")
    got = cells.chars_at(probe)
    inside = want <= len(widths)
    assert got[inside].tolist() == want[inside].tolist()
    assert [cells.char_at(int(c)) for c in probe[inside]] == want[inside].tolist()
    assert (got[~inside] > len(widths)).all()  # past the text: over n, as callers clip


@settings(max_examples=300, deadline=None)
@given(WIDTHS, st.integers(0, 60), st.integers(0, 60))
def test_coded_are_the_characters_wider_than_two(widths: list[int], a: int, b: int) -> None:
    cells = Cells.of_widths(np.array(widths, dtype=np.uint8))
    a, b = sorted((min(a, len(widths)), min(b, len(widths))))
    assert cells.coded(a, b).tolist() == [i for i in range(a, b) if widths[i] > 2]


@settings(max_examples=400, deadline=None)
@given(WIDTHS, WIDTHS, st.integers(0, 60), st.integers(0, 60))
def test_a_splice_is_the_cells_of_the_edited_text(widths: list[int], mid: list[int], a: int, b: int) -> None:
    a, b = sorted((min(a, len(widths)), min(b, len(widths))))
    old = Cells.of_widths(np.array(widths, dtype=np.uint8))
    new = widths[:a] + mid + widths[b:]
    got = old.splice(Cells.of_widths(np.array(mid, dtype=np.uint8)), a, b)
    assert got == Cells.of_widths(np.array(new, dtype=np.uint8))  # the same runs, joined at the seams
    assert got.dense().tolist() == _dense(new).tolist()


def test_plain_text_has_no_runs() -> None:
    cells = Cells.plain(5)
    assert cells.dense().tolist() == [0, 1, 2, 3, 4, 5] and len(cells.starts) == 0
    assert cells.chars_at(np.array([0, 3, 5])).tolist() == [0, 3, 5]
