"""The span layout: every character is drawn once, by the token whose byte span holds it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from support import vocab_file
from tui_tok.explore.layout import flow_rows, layout_tokens, row_segments, row_span, token_at, wrap_rows
from tui_tok.tokenizer.core.types import Token, TokenKind


def _tile(text: str, cuts: list[int]) -> list[Token]:
    data = text.encode()
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    return [Token(i, a, b, TokenKind.NORMAL) for i, (a, b) in enumerate(zip(points, points[1:]))]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60), st.lists(st.integers(0, 400), max_size=20), st.integers(2, 30))
def test_rows_redraw_the_text_exactly(text: str, cuts: list[int], width: int) -> None:
    """Concatenating every row's segments gives back the text; each segment's token covers it."""
    tokens = _tile(text, cuts)
    lay = layout_tokens(text, tokens)
    rows = wrap_rows(lay, width=width)
    drawn = []
    for y in range(rows.n_rows):
        a, b = row_span(lay, rows, y)
        assert sum(2 if (0x3000 <= ord(c) <= 0xDFFF or 0x10000 <= ord(c) <= 0x3FFFF) else 1 for c in text[a:b]) <= width
        for seg in row_segments(lay, rows, y):
            drawn.append(text[seg.start : seg.end])
            if seg.token >= 0:
                tok = tokens[seg.token]
                # the characters drawn for a token overlap the bytes of its span
                before = len(text[: seg.start].encode())
                assert before < tok.end and len(text[: seg.end].encode()) > tok.start
    assert "".join(drawn) == text


@settings(max_examples=100, deadline=None)
@given(st.text(min_size=1, max_size=40), st.lists(st.integers(0, 200), max_size=10))
def test_token_at_finds_the_covering_token(text: str, cuts: list[int]) -> None:
    tokens = _tile(text, cuts)
    lay = layout_tokens(text, tokens)
    for c in range(len(text)):
        i = token_at(lay, c)
        b = len(text[:c].encode())
        assert tokens[i].start <= b < tokens[i].end or (tokens[i].start < len(text[: c + 1].encode()) <= tokens[i].end)


def test_byte_tokens_inside_one_character_share_it() -> None:
    """Three byte-fallback tokens of '日' all map to that one character; the first draws it."""
    text = "a日"
    tokens = [Token(1, 0, 1, TokenKind.NORMAL)] + [Token(10 + i, 1 + i, 2 + i, TokenKind.BYTE) for i in range(3)]
    lay = layout_tokens(text, tokens)
    assert lay.starts.tolist() == [0, 1, 1, 1] and lay.ends.tolist() == [1, 2, 2, 2]
    rows = wrap_rows(lay, width=10)
    assert [(s.start, s.end, s.token) for s in row_segments(lay, rows, 0)] == [(0, 1, 0), (1, 2, 1)]


def test_bos_covers_nothing() -> None:
    lay = layout_tokens("hi", [Token(1, 0, 0, TokenKind.SPECIAL), Token(5, 0, 2, TokenKind.NORMAL)])
    assert token_at(lay, 0) == 1


def test_wide_characters_take_two_cells() -> None:
    lay = layout_tokens("日本語日本語\nabcdef", [])
    rows = wrap_rows(lay, width=6)  # rows hold character starts in 5 cells
    assert rows.row_starts.tolist() == [0, 3, 5]
    assert [row_span(lay, rows, y) for y in range(5)] == [(0, 3), (3, 5), (5, 7), (7, 12), (12, 13)]


def test_flow_rows_never_overflows() -> None:
    widths = [3, 5, 2, 7, 1, 1, 4]
    starts = flow_rows(widths, width=8).tolist()
    for a, b in zip(starts, starts[1:]):
        assert sum(widths[a:b]) <= 8 or b - a == 1


@pytest.mark.parametrize("name", ["phi-3", "qwen3-vocab", "t5-botchan-en-unigram-1000", "bert-bge"])
def test_real_tokenizer_spans_are_drawn_in_order(name: str) -> None:
    """With the engine's spans, tokens are drawn in order and each span's text is its token's."""
    from tui_tok import load_tokenizer

    tok = load_tokenizer(vocab_file(name).path)
    text = "Hello  world!\n\t日本語 🙂 naïve <s> x"
    tokens = tok.tokenize(text, add_special=True, parse_special=True)
    lay = layout_tokens(text, tokens)
    rows = wrap_rows(lay, width=7)
    seen = [s.token for y in range(rows.n_rows) for s in row_segments(lay, rows, y) if s.token >= 0]
    assert seen == sorted(seen)
    assert "".join(text[s.start : s.end] for y in range(rows.n_rows) for s in row_segments(lay, rows, y)) == text
