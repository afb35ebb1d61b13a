"""The whole-word shortcut of the WPM encoder gives what llama.cpp's walk gives, and prepare()
changes no id."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st
from support import ASSETS

from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.tokenizer.wpm.encoder import WpmEncoder

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
