"""WPM (BERT) encoder against llama.cpp: conformance rows, .inp/.out vectors, a literal port, invariants."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings, strategies as st

from fixtures.simple_vocab import row_ids, tokenizer_mismatches, vocab_from_file
from fixtures.wpm_literal import tokenize as literal_tokenize
from support import conformance_rows, llama_test_cases, vocab_file
from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.core.spans import decode_with_offsets
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.wpm.encoder import WpmEncoder, word_classes

NAME = "bert-bge"


@cache
def bert() -> tuple[Vocab, WpmEncoder]:
    vocab = vocab_from_file(vocab_file(NAME).path)
    return vocab, WpmEncoder(vocab)


def ids_of(text: bytes) -> list[int]:
    return [p[0] for p in bert()[1].encode_fragment(text, after_special=True)]


ROWS = conformance_rows(NAME)


def test_conformance_file_present() -> None:
    assert len(ROWS) > 200


@pytest.mark.parametrize("row", ROWS, ids=[f"{i}-{r['text'][:20]!r}" for i, r in enumerate(ROWS)])
def test_conformance(row: dict) -> None:
    vocab, enc = bert()
    assert row_ids(vocab, enc, row) == row["ids"]


@pytest.mark.parametrize("text,ids", llama_test_cases(NAME))
def test_llama_vectors(text: str, ids: list[int]) -> None:
    assert ids_of(text.encode()) == ids


def test_conformance_through_real_tokenizer() -> None:
    assert tokenizer_mismatches(vocab_file(NAME).path, ROWS) == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # accents vanish (first cp of NFD), then lowercase
        ("Résumé", "resume"),
        # Hangul syllable -> its leading jamo (not real NFD)
        ("한", "\u1112"),
        # zero-width space is Cf: dropped without ending the word
        ("zero\u200bwidth", "zerowidth"),
    ],
)
def test_normalisation_matches_vocab_lookup(text: str, expected: str) -> None:
    vocab, _ = bert()
    assert ids_of(text.encode()) == literal_tokenize(vocab, expected.encode())


def test_cjk_quirk_range() -> None:
    # U+2B820..U+2B91F is outside llama.cpp's table (0x2B920 typo): kept inside the word
    assert word_classes("a\U0002b820b\U0002b920c") == "kkkik"


def test_spans_skip_dropped_and_phantom_space() -> None:
    # "Hello, wor\u200bld" -> hello | , | world; the ZWSP is a gap inside "world"'s span
    text = "Hello, wor\u200bld!".encode()
    pieces = bert()[1].encode_fragment(text, after_special=True)
    spans = [text[s:e] for _, s, e in pieces]
    assert spans == [b"Hello", b",", "wor\u200bld".encode(), b"!"]


def test_unk_covers_whole_word() -> None:
    text = "ab \u1780\u17b6\u1793 cd".encode()  # Khmer word -> one [UNK]
    vocab, enc = bert()
    pieces = enc.encode_fragment(text, after_special=True)
    assert [p[0] for p in pieces][1] == vocab.unk_id
    assert text[pieces[1][1] : pieces[1][2]] == "\u1780\u17b6\u1793".encode()


def test_codepoint_above_unicode_raises() -> None:
    with pytest.raises(TokenizeError, match="above U\\+10FFFF"):
        ids_of(b"ab\xf4\x90\x80\x80")


def test_decode_with_offsets_lenient() -> None:
    assert decode_with_offsets(b"\xc0\x80\xed\xa0\x80\xff") == ([0, 0xD800, 0xFFFD], [0, 2, 5, 6])


def _check_spans(pieces: list[tuple[int, int, int]], n: int) -> None:
    prev = 0
    for _, s, e in pieces:
        assert prev <= s <= e <= n
        prev = e


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_text_matches_literal_port_and_spans_hold(text: str) -> None:
    vocab, enc = bert()
    data = text.encode("utf-8", "surrogatepass")
    pieces = enc.encode_fragment(data, after_special=True)
    assert [p[0] for p in pieces] == literal_tokenize(vocab, data)
    _check_spans(pieces, len(data))


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=64))
def test_arbitrary_bytes(data: bytes) -> None:
    vocab, enc = bert()
    try:
        expected = literal_tokenize(vocab, data)
    except ValueError:  # a code point above U+10FFFF: llama.cpp throws too
        with pytest.raises(TokenizeError):
            enc.encode_fragment(data, after_special=True)
        return
    pieces = enc.encode_fragment(data, after_special=True)
    assert [p[0] for p in pieces] == expected
    _check_spans(pieces, len(data))


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz .,", max_size=60))
def test_span_bytes_equal_piece_text(text: str) -> None:
    vocab, enc = bert()
    data = text.encode()
    for tid, s, e in enc.encode_fragment(data, after_special=True):
        assert vocab.tokens[tid].removeprefix("\u2581").encode() == data[s:e]


def _tiny(tokens: list[str], **flags: bool) -> tuple[Vocab, WpmEncoder]:
    from fixtures.simple_vocab import vocab_from_plain

    meta: dict = {"tokenizer.ggml.model": "bert", "tokenizer.ggml.tokens": tokens}
    meta.update({f"tokenizer.ggml.normalizer.{k}": v for k, v in flags.items()})
    vocab = vocab_from_plain(meta)
    return vocab, WpmEncoder(vocab)


TINY = ["▁e", "\u0301", "▁É", "▁é", "▁Ab", "▁ab", "c", "▁\u1112", "▁한"]


@pytest.mark.parametrize(
    "flags,text,expected",
    [
        ({}, "Abc", ["▁ab", "c"]),
        ({"lowercase": False}, "Abc", ["▁Ab", "c"]),  # strip_accents defaults to lowercase -> off
        ({"lowercase": False, "strip_accents": True}, "É", [None]),  # -> "E", not a token: unk (NULL)
        ({"lowercase": True, "strip_accents": False}, "e\u0301", ["▁e", "\u0301"]),  # marks kept
        ({"lowercase": True, "strip_accents": True}, "e\u0301", ["▁e"]),  # marks dropped
        ({"lowercase": True, "strip_accents": False}, "É", ["▁é"]),
        ({"lowercase": True, "strip_accents": True}, "한", ["▁\u1112"]),
        ({"lowercase": True, "strip_accents": False}, "한", ["▁한"]),
    ],
)
def test_normaliser_options(flags: dict, text: str, expected: list[str | None]) -> None:
    vocab, enc = _tiny(TINY, **flags)
    got = [vocab.tokens[t] if t >= 0 else None for t, _, _ in enc.encode_fragment(text.encode(), after_special=True)]
    assert got == expected
    assert [t for t, _, _ in enc.encode_fragment(text.encode(), after_special=True)] == literal_tokenize(
        vocab, text.encode()
    )


def test_unk_is_null_when_vocab_has_none() -> None:
    vocab, enc = _tiny(["▁a"])
    assert vocab.unk_id == -1
    assert enc.encode_fragment(b"a b", after_special=True) == [(0, 0, 1), (-1, 2, 3)]
