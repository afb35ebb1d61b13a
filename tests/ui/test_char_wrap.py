"""The editor's character wrap for long texts (``char_wrap``): rows counted with numpy agree with
the sections drawn, fit the width, survive edits as a fresh wrap would, and cost no Python per line."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from rich.cells import cell_len
from textual.expand_tabs import expand_tabs_inline

from tui_tok.explore.display import editor_text
from tui_tok.ui.widgets import char_wrap
from tui_tok.ui.widgets.char_wrap import AdaptiveWrappedDocument, line_cells
from tui_tok.ui.widgets.exact_document import ExactDocument, spliced_text

PARTS = ["a", "bc ", "\t", "日本", "🙂", "\u200b", "\r", "\x00", "é", " ", "x" * 30, "\u3000", "\x85"]
LINE = st.lists(st.sampled_from(PARTS), max_size=12).map("".join)
TEXT = st.lists(LINE, min_size=1, max_size=12).map("\n".join)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def wrapped(text: str, width: int) -> AdaptiveWrappedDocument:
    doc = AdaptiveWrappedDocument(ExactDocument(text), width=0, tab_width=4)
    doc.wrap(width, 4)
    return doc


def check(doc: AdaptiveWrappedDocument, width: int) -> None:
    assert doc._by_char
    y = 0
    for line in range(doc.document.line_count):
        sections = doc.get_sections(line)
        assert "".join(sections) == doc.document[line]
        assert len(sections) == len(doc.get_offsets(line)) + 1 == len(doc._line_index_to_offsets[line])
        for k, section in enumerate(sections):
            assert doc._offset_to_line_info[y] == (line, k)
            if len(section) > 1 and "\t" not in section:
                assert cell_len(section) <= width
            y += 1
    assert doc.height == y


@pytest.fixture(autouse=True)
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(char_wrap, "BIG_CHARS", 0)
    monkeypatch.setattr(char_wrap, "SMALL_CHARS", 0)


@SETTINGS
@given(line=LINE)
def test_line_cells_measure_as_drawn(line: str) -> None:
    cells, plain, tabs = line_cells([line, "plain"])
    assert tabs[0] == line.count("\t")
    assert cells[0] == cell_len(editor_text(line).replace("\t", ""))
    assert plain[0] == all(cell_len(c) == 1 for c in editor_text(line))
    assert (cells[1], plain[1], tabs[1]) == (5, True, 0)


@SETTINGS
@given(text=TEXT, width=st.integers(4, 30))
def test_rows_agree_with_sections(text: str, width: int) -> None:
    check(wrapped(text, width), width)


@SETTINGS
@given(text=TEXT, insert=TEXT, at=st.integers(0, 10_000), cut=st.integers(0, 40), width=st.integers(4, 30))
def test_edits_wrap_as_a_fresh_wrap(text: str, insert: str, at: int, cut: int, width: int) -> None:
    doc = wrapped(text, width)
    document = doc.document
    assert isinstance(document, ExactDocument)
    start = document.get_location_from_index(min(at, len(text)))
    end = document.get_location_from_index(min(at + cut, len(text)))
    result = document.replace_range(start, end, insert)
    doc.wrap_range(start, end, result.end_location)
    fresh = wrapped(document.text, width)
    assert doc._rows.tolist() == fresh._rows.tolist()
    check(doc, width)


def test_tabs_expand_within_the_width() -> None:
    doc = wrapped("\t\t\tab\tcd\t" * 3, 10)
    for section in doc.get_sections(0):
        assert len(expand_tabs_inline(section, 4)) <= 14


@SETTINGS
@given(text=TEXT, insert=TEXT, at=st.integers(0, 10_000), cut=st.integers(0, 40))
def test_document_text_and_line_starts_kept_across_edits(text: str, insert: str, at: int, cut: int) -> None:
    document = ExactDocument(text)
    assert document.text == text and document.n_chars == len(text)  # both known before the edit: spliced
    start = document.get_location_from_index(min(at, len(text)))
    end = document.get_location_from_index(min(at + cut, len(text)))
    document.replace_range(start, end, insert)
    expected = text[: min(at, len(text))] + insert + text[min(at + cut, len(text)) :]
    assert document.text == expected
    assert document.n_chars == len(expected)
    assert [document.get_index_from_location((row, 0)) for row in range(document.line_count)] == [
        0,
        *[i + 1 for i, c in enumerate(expected) if c == "\n"],
    ]


WIDE_PARTS = ["a", "日", "🙂", "\u200b", "\ufe0f", "\u0301", "\x01", "é", "x" * 7, "\u3000"]


@SETTINGS
@given(lines=st.lists(st.lists(st.sampled_from(WIDE_PARTS), max_size=40).map("".join), max_size=8),
       width=st.integers(1, 12))  # fmt: skip
def test_rows_of_many_lines_at_once_as_one_by_one(lines: list[str], width: int) -> None:
    # the numpy wrap of lines without tabs (a character wider than the row, zero-width ones at a row's start)
    want = [len(char_wrap.char_wrap_offsets(editor_text(line), width, 4)) + 1 for line in lines]
    assert char_wrap.greedy_rows(lines, width).tolist() == want


def test_a_wrap_at_the_same_width_counts_no_rows_again(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = wrapped("日本語 " * 40 + "\nplain\n" + "🙂" * 30, 9)
    rows = doc._rows.tolist()
    calls: list[int] = []
    count = AdaptiveWrappedDocument._count_rows
    monkeypatch.setattr(AdaptiveWrappedDocument, "_count_rows", lambda self, *a: calls.append(1) or count(self, *a))
    doc.wrap(9, 4)  # TextArea wraps again at the width it has when shown
    assert calls == [] and doc._rows.tolist() == rows
    doc.wrap(7, 4)
    assert calls == [1] and doc._rows.tolist() == wrapped(doc.document.text, 7)._rows.tolist()


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab\n🙂é", max_size=30),
    st.integers(0, 30),
    st.integers(0, 30),
    st.text(alphabet="ab\n🙂", max_size=4),
)
def test_a_spliced_text_is_the_slices_joined(old: str, i: int, j: int, text: str) -> None:
    i, j = sorted((min(i, len(old)), min(j, len(old))))
    assert spliced_text(old, i, j, text) == old[:i] + text + old[j:]
