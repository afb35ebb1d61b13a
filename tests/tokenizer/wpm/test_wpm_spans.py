"""WPM spans in whole arrays (``wpm/spans.py``) and word by word (``encode_fragment``) == the
reference's (``wpm/reference.py``):
same ids, same byte spans, on bert-bge and on tiny vocabularies (no unk, a lone ``▁`` token,
each normaliser option), and through ``Tokenizer.tokenize`` / ``tokenize_arrays``."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fixtures.simple_vocab import vocab_from_plain
from support import ASSETS
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.core.paths import AUTO
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.tokenizer.wpm.encoder import WpmEncoder
from tui_tok.tokenizer.wpm.reference import ReferenceEncoder
from tui_tok.tokenizer.wpm.spans import fragment_arrays

ARRAYS_FROM = AUTO.wpm_arrays_from

BERT = ASSETS / "ggml-vocab-bert-bge.gguf"
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# words and the characters that make WPM's spans interesting: dropped ones inside and at the edges
# of words (ZWSP, soft hyphen, controls, combining marks), punctuation and CJK alone, accents
# stripped, Hangul to its jamo, scripts the vocab lacks (unknown words), long words
PARTS = st.sampled_from([
    " ", "  ", "\n", "\t", "the", "The", "HELLO", "tokenizers", "unaffable", "x", "a", "12345", ",", ".", "!", "'s",
    "é", "É", "naïve", "café", "中", "日本語", "한국어", "\u200b", "\u00ad", "\x01", "\x7f", "e\u0301", "\u0301",
    "ក្រុង", "ßtraße", "Ωμέγα", "🦙", "\ufffd", "\u3000", "supercalifragilisticexpialidocious", "x\u200by", "a\x00b",
])  # fmt: skip
TEXT = st.one_of(st.lists(PARTS, max_size=40).map("".join), st.text(max_size=60))


@cache
def bert() -> WpmEncoder:
    enc = load_tokenizer(BERT).encoder
    assert isinstance(enc, WpmEncoder)
    return enc


def plain_columns(enc: WpmEncoder, data: bytes) -> list[list[int]]:
    pieces = ReferenceEncoder(enc.vocab).encode_fragment(data, after_special=True)
    return [list(c) for c in zip(*pieces)] if pieces else [[], [], []]


def check(enc: WpmEncoder, text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    got = fragment_arrays(enc, data)
    want = plain_columns(enc, data)
    pieces = enc.encode_fragment(data, after_special=True)  # word by word (or the reference's)
    assert ([list(c) for c in zip(*pieces)] if pieces else [[], [], []]) == want
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        assert got is None  # lenient decoding: the reference
        return
    assert got is not None
    assert all(c.dtype == np.int64 for c in got)
    assert [c.tolist() for c in got] == want


@SETTINGS
@given(TEXT)
def test_arrays_equal_the_reference(text: str) -> None:
    check(bert(), text)


@SETTINGS
@given(TEXT)
def test_arrays_equal_the_reference_on_a_cold_encoder(text: str) -> None:
    """Nothing learnt or cached before: the characters' normalised lengths are learnt here."""
    check(WpmEncoder(bert().vocab), text)


def tiny(tokens: list[str], **flags: bool) -> WpmEncoder:
    meta: dict = {"tokenizer.ggml.model": "bert", "tokenizer.ggml.tokens": tokens}
    meta.update({f"tokenizer.ggml.normalizer.{k}": v for k, v in flags.items()})
    return WpmEncoder(vocab_from_plain(meta))


TINY = [
    "▁",
    "▁e",
    "\u0301",
    "▁É",
    "▁é",
    "▁Ab",
    "▁ab",
    "c",
    "b",
    "a",
    "▁\u1112",
    "▁한",
    "▁x",
    "y",
    "▁中",
    "▁,",
    "▁ab\u0301",
]
FLAGS = [
    {},
    {"lowercase": False},
    {"lowercase": False, "strip_accents": True},
    {"lowercase": True, "strip_accents": False},
]


@pytest.mark.parametrize("flags", FLAGS, ids=str)
@SETTINGS
@given(st.lists(st.sampled_from(["a", "b", "c", "ab", "Ab", "x", "y", "e", "É", "é", "\u0301", "한", "中", ",", " ", "\u200b", "z"]),
                max_size=20).map("".join))  # fmt: skip
def test_tiny_vocabularies(flags: dict, text: str) -> None:
    """No unk token (id -1), a lone ``▁`` (a token that holds no character: an empty span), marks
    kept or dropped, case kept or lowered."""
    check(tiny(TINY, **flags), text)


def test_a_lone_phantom_space_has_an_empty_span() -> None:
    """The test above meets tokens that cover no character: ``▁`` then ``a`` for the word ``a``."""
    enc = tiny(TINY)
    data = b"a b"
    assert plain_columns(enc, data) == [[0, 9, 0, 8], [0, 0, 2, 2], [0, 1, 2, 3]]
    got = fragment_arrays(enc, data)
    assert got is not None and [c.tolist() for c in got] == plain_columns(enc, data)


@pytest.fixture(scope="module")
def long_text() -> str:
    base = "Hello WORLD, naïve café! 日本語 tokenizers\u200b split   words 12345 ក្រុង x\x01y\n"
    return base * (2 * ARRAYS_FROM // len(base) + 1)


def test_tokenizer_takes_the_arrays_path_and_gives_the_plain_tokens(long_text: str) -> None:
    tok: Tokenizer = load_tokenizer(BERT)
    enc = tok.encoder
    assert isinstance(enc, WpmEncoder)
    data = long_text.encode()
    assert len(data) >= ARRAYS_FROM
    ids, starts, ends = plain_columns(enc, data)
    first = 1  # [CLS] at 0..0, then the text's tokens, then [SEP] at the end
    got = tok.tokenize_arrays(data)
    assert [c.tolist()[first:-1] for c in got] == [ids, starts, ends]
    tokens = tok.tokenize(data)
    assert [(t.id, t.start, t.end) for t in tokens[first:-1]] == list(zip(ids, starts, ends))
    assert [t.kind for t in tokens] == [tok.token_kind(t.id) for t in tokens]
    assert [t.id for t in tokens] == tok.encode(data)
