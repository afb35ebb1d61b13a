"""The whole-word shortcut of the WPM encoder gives what llama.cpp's walk gives, and prepare()
changes no id."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import ASSETS

from tui_tok.errors import TokenizeError
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.tokenizer.wpm.encoder import WpmEncoder, _word_spans

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


@settings(max_examples=400, deadline=None)
@given(st.one_of(ascii_word, st.integers(0, 10**6).map(lambda i: vocab_words()[i % len(vocab_words())])),
       st.booleans())
def test_shortcut_equals_walk(word: str, upper: bool) -> None:
    word = word.upper() if upper else word
    enc = encoder()
    assert enc._encode_word(word) == enc._walk_word(word)


def test_shortcut_is_taken_for_common_words() -> None:
    """The test above compares something: common words are whole tokens (one piece each)."""
    enc = encoder()
    for word in ("the", "The", "HELLO", "world", "hello"):
        assert len(enc._encode_word(word)) == 1, word


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
def test_ids_path_equals_spans_path(text: str) -> None:
    """``encode_fragment_ids`` (words as byte ranges, cached by bytes) == ``encode_fragment``'s ids,
    with dropped characters inside words, words alone, non-ASCII and whitespace of every kind."""
    enc = encoder()
    data = text.encode("utf-8", "surrogatepass")
    expected = [tid for tid, _, _ in enc.encode_fragment(data, after_special=True)]
    assert enc.encode_fragment_ids(data) == expected
    assert enc.encode_fragment_ids(data + b" " + data) == expected * 2  # the second copy from the cache


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=60))
def test_ids_path_equals_spans_path_on_any_bytes(data: bytes) -> None:
    enc = encoder()
    try:
        expected = [tid for tid, _, _ in enc.encode_fragment(data, after_special=True)]
    except TokenizeError:
        with pytest.raises(TokenizeError):
            enc.encode_fragment_ids(data)
        return
    assert enc.encode_fragment_ids(data) == expected


@settings(max_examples=400, deadline=None)
@given(st.one_of(ascii_word, st.integers(0, 10**6).map(lambda i: vocab_words()[i % len(vocab_words())])),
       st.sampled_from(["", "s", "ing", "zz", "q9"]), st.booleans())
def test_ascii_word_walk_equals_walk(word: str, suffix: str, upper: bool) -> None:
    """The ASCII ids walk (rest-of-word lookups first) == llama.cpp's walk, on words that split."""
    word = (word + suffix).upper() if upper else word + suffix
    enc = encoder()
    assert enc._ascii_word_ids(word.encode()) == tuple(t for t, _, _ in enc._walk_word(word))


@pytest.mark.parametrize("lowercase", [True, False])
def test_ascii_word_walk_follows_lowercase_flag(lowercase: bool) -> None:
    from fixtures.simple_vocab import vocab_from_plain

    vocab = vocab_from_plain({"tokenizer.ggml.model": "bert", "tokenizer.ggml.normalizer.lowercase": lowercase,
                              "tokenizer.ggml.tokens": ["▁Ab", "▁ab", "c", "C", "[UNK]"],
                              "tokenizer.ggml.unknown_token_id": 4})
    enc = WpmEncoder(vocab)
    for word in ("Abc", "abC", "ABC", "abx"):
        assert enc._ascii_word_ids(word.encode()) == tuple(t for t, _, _ in enc._walk_word(word)), word


def _word_spans_reference(classes: np.ndarray) -> tuple[list[int], list[int]]:
    """The former ``_word_spans``: gather the non-dropped, compare with shifted copies."""
    nd = np.flatnonzero(classes != ord("d"))
    cc = classes[nd]
    kept = cc == ord("k")
    prev_kept, next_kept = np.zeros_like(kept), np.zeros_like(kept)
    prev_kept[1:], next_kept[:-1] = kept[:-1], kept[1:]
    alone = cc == ord("i")
    return nd[alone | (kept & ~prev_kept)].tolist(), (nd[alone | (kept & ~next_kept)] + 1).tolist()


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=" dik", max_size=40))
def test_word_spans_equal_reference(classes: str) -> None:
    arr = np.frombuffer(classes.encode(), dtype=np.uint8)
    starts, ends = _word_spans(arr)
    assert (starts.tolist(), ends.tolist()) == _word_spans_reference(arr)
