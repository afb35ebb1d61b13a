"""The WPM encoder's ids path (byte-range words, whole-word lookups, the batched walk) gives
what ``wpm/reference.py`` gives, and prepare() changes no id."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from support import ASSETS
from tui_tok.errors import TokenizeError
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.tokenizer.wpm.encoder import WpmEncoder
from tui_tok.tokenizer.wpm.reference import ReferenceEncoder

BERT = ASSETS / "ggml-vocab-bert-bge.gguf"


@cache
def encoder() -> WpmEncoder:
    enc = load_tokenizer(BERT).encoder
    assert isinstance(enc, WpmEncoder)
    return enc


@cache
def vocab_words() -> list[str]:
    """Token texts without the ▁ prefix, as typed words (mixed case): most take the shortcut."""
    return [t[1:] for t in encoder().vocab.tokens if t.startswith("\u2581") and t[1:].isascii() and t[1:].isalnum()]


ascii_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1, max_size=14)


@cache
def reference() -> ReferenceEncoder:
    return ReferenceEncoder(encoder().vocab)


def _reference_ids(data: bytes, ref: ReferenceEncoder | None = None) -> list[int]:
    return [tid for tid, _, _ in (ref or reference()).encode_fragment(data, after_special=True)]


def test_prepare_changes_no_id() -> None:
    text = "Hello WORLD, naïve café! 日本語 tokenizers\u200b split   words 12345"
    cold = load_tokenizer(BERT).encode(text)
    warm: Tokenizer = load_tokenizer(BERT)
    warm.prepare()
    assert warm.encode(text) == cold


# --- the ids-only path: byte-range words, distinct words in arrays, the ASCII word walk ---------

_MIXED = st.text(alphabet=st.sampled_from(list("abcXYZ019 ,.-_\t\n\u200b\u0301éÉ中日한\u00a0\x00\ufffd")), max_size=80)


@settings(max_examples=300, deadline=None)
@given(_MIXED | st.text(max_size=60))
def test_ids_path_equals_reference(text: str) -> None:
    """``encode_fragment_ids`` (words as byte ranges) == the reference's ids, with dropped
    characters inside words, words alone, non-ASCII and whitespace of every kind."""
    enc = encoder()
    data = text.encode("utf-8", "surrogatepass")
    expected = _reference_ids(data)
    assert enc.encode_fragment_ids(data) == expected
    assert enc.encode_fragment_ids(data + b" " + data) == expected * 2  # the second copy from the cache


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=60))
def test_ids_path_equals_reference_on_any_bytes(data: bytes) -> None:
    enc = encoder()
    try:
        expected = _reference_ids(data)
    except TokenizeError:
        with pytest.raises(TokenizeError):
            enc.encode_fragment_ids(data)
        return
    assert enc.encode_fragment_ids(data) == expected


_WORD = st.text(alphabet=st.sampled_from(list("abcxyzXYZ0189éÉöñ中日한\u0301\u200b\x01-,")), min_size=1, max_size=16)


def _batched(enc: WpmEncoder, words: list[str]) -> list[tuple[int, ...]]:
    """``distinct_ids`` of ``words`` (as valid UTF-8 bytes), split back per word."""
    table = enc._token_table()
    assert table is not None
    flat, sizes = enc.distinct_ids(table, [w.encode() for w in words])
    cuts = np.cumsum(sizes).tolist()
    return [tuple(flat[a:b].tolist()) for a, b in zip([0] + cuts[:-1], cuts)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            ascii_word,
            _WORD,
            st.integers(0, 10**6).map(lambda i: vocab_words()[i % len(vocab_words())]),
            st.tuples(ascii_word, st.sampled_from(["", "s", "ing", "zz", "q9", "izers"])).map("".join),
        ),
        min_size=1,
        max_size=12,
        unique=True,
    ),
    st.booleans(),
)
def test_batched_walk_equals_reference(words: list[str], upper: bool) -> None:
    """The numpy walk of many words at once (``TokenTable.walk_words``) == the reference's walk
    of each word: whole words, words that split, unks, accents, dropped characters (a text
    the reference cuts into several words, such as ``0中``, is no word)."""
    words = list(dict.fromkeys(w.upper() if upper else w for w in words))
    words = [w for w in words if len(reference().words(list(map(ord, w)))) == 1]
    if not words:
        return
    assert _batched(encoder(), words) == [tuple(_reference_ids(w.encode())) for w in words]


def test_batched_walk_meets_splits_and_unks() -> None:
    """The test above sees words that split into several tokens and words that are one unk."""
    enc = encoder()
    got = _batched(enc, ["tokenizers", "ab\u2c00", "the"])
    assert len(got[0]) > 1 and got[1] == (enc.unk_id,) and len(got[2]) == 1


@pytest.mark.parametrize("lowercase", [True, False])
def test_batched_walk_follows_lowercase_flag(lowercase: bool) -> None:
    from fixtures.simple_vocab import vocab_from_plain

    vocab = vocab_from_plain(
        {
            "tokenizer.ggml.model": "bert",
            "tokenizer.ggml.normalizer.lowercase": lowercase,
            "tokenizer.ggml.tokens": ["▁Ab", "▁ab", "c", "C", "[UNK]"],
            "tokenizer.ggml.unknown_token_id": 4,
        }
    )
    enc = WpmEncoder(vocab)
    words = ["Abc", "abC", "ABC", "abx"]
    assert _batched(enc, words) == [tuple(_reference_ids(w.encode(), ReferenceEncoder(vocab))) for w in words]


def test_long_tokens_take_the_word_walk() -> None:
    """A vocab with a token longer than the table's keys has no table; encode walks per word
    (the reference's walk of each distinct word)."""
    from fixtures.simple_vocab import vocab_from_plain

    long = "▁" + "a" * 30
    vocab = vocab_from_plain(
        {
            "tokenizer.ggml.model": "bert",
            "tokenizer.ggml.tokens": [long, "▁a", "a", "[UNK]"],
            "tokenizer.ggml.unknown_token_id": 3,
        }
    )
    enc = WpmEncoder(vocab)
    assert enc._token_table() is None
    assert enc.encode_fragment_ids(b"a" * 33 + b" b") == [0, 2, 2, 2, 3]
    assert enc.encode_fragment(b"a" * 31 + b" a", after_special=True) == [(0, 0, 30), (2, 30, 31), (1, 32, 33)]
