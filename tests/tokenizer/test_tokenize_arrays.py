"""``Tokenizer.tokenize_arrays`` and ``tokenize_arrays_pieces`` (the columns ``tokenize`` is made of)
give the ids and spans of the pieces path (each fragment's ``encode_fragment``), on every available
vocab, for any text and with pieces cut every few characters."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from support import VocabFile, vocab_files
from tui_tok.errors import TokenizeError
from tui_tok.samples import DEFAULT_SAMPLE
from tui_tok.tokenizer.special.partition import RAW
from tui_tok.tokenizer.tokenizer import as_bytes, concat_arrays

VOCABS = list(vocab_files())
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LINES = st.lists(
    st.sampled_from(["\n", "\n\n", " ", "  ", "\t", "a", "Hello", " world", "'s", "123456", "é", "中文", "🦙", ".", "!!",
                     "\r\n", "\u00a0", "\u3000", "<s>", "<|im_end|>", "\u2581", "x  \n", "\n y"]),
    max_size=40,
).map("".join)  # fmt: skip
TEXT = st.one_of(st.text(max_size=60), LINES)


def columns(tok, text: str, add: bool, parse: bool) -> tuple[list[int], list[int], list[int]]:  # type: ignore[no-untyped-def]
    """The pieces path, independent of the columns: the special tokens of ``fragments`` and each raw
    fragment's ``encode_fragment`` shifted to its place."""
    data = as_bytes(text)
    ids: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    for start, end, token, after in tok.fragments(data, add_special=add, parse_special=parse):
        pieces = (
            [(token, 0, end - start)]
            if token != RAW
            else tok.encoder.encode_fragment(data[start:end], after_special=after)
        )
        for tid, s, e in pieces:
            ids.append(tid)
            starts.append(start + s)
            ends.append(start + e)
    return ids, starts, ends


@pytest.mark.parametrize("vf", VOCABS, ids=[v.name for v in VOCABS])
@SETTINGS
@given(text=TEXT, add=st.booleans(), parse=st.booleans(), piece=st.integers(1, 12))
def test_arrays_equal_the_pieces_path(
    load_cached, vf: VocabFile, text: str, add: bool, parse: bool, piece: int
) -> None:
    tok = load_cached(vf.path)
    try:
        expected = columns(tok, text, add, parse)
    except TokenizeError:
        with pytest.raises(TokenizeError):
            tok.tokenize_arrays(text, add_special=add, parse_special=parse)
        return
    whole = tok.tokenize_arrays(text, add_special=add, parse_special=parse)
    assert [a.tolist() for a in whole] == list(expected)
    pieces = list(tok.tokenize_arrays_pieces(text, add_special=add, parse_special=parse, piece_chars=piece))
    assert [a.tolist() for a in concat_arrays(pieces)] == list(expected)
    assert all(a.dtype.name == "int64" for a in concat_arrays(pieces))


def test_a_long_text_comes_in_many_exact_pieces(load_cached) -> None:
    tok = load_cached(DEFAULT_SAMPLE)  # the bundled Qwen3: a pre-tokenizer with proven cuts
    text = "def f(x):\n    return x  # é\n\nThe quick 12345 fox.  \n日本語\n" * 300
    pieces = list(tok.tokenize_arrays_pieces(text, piece_chars=500))
    assert len(pieces) > 20  # really cut: a caller can stop between them
    ids, starts, ends = concat_arrays(pieces)
    assert ids.tolist() == tok.encode(text)
    assert list(zip(starts.tolist(), ends.tolist())) == [(t.start, t.end) for t in tok.tokenize(text)]
