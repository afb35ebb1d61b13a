"""PLaMo2 encoder: hand-derived cases from llama.cpp's DP, its literal port (``plamo2/reference.py``), invariants.

No real PLaMo2 GGUF exists here: ``tests/fixtures/plamo2_vocab.py`` builds one from llama.cpp's rules.
``test_plamo2_oracle.py`` checks the same cases against llama.cpp's own code when it is built.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fixtures.plamo2_vocab import CASES, plamo2_metadata, plamo2_tokens, write_plamo2_gguf
from fixtures.simple_vocab import vocab_from_file, vocab_from_plain
from tui_tok.errors import VocabError
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.plamo2.encoder import INVALID_SCORE, Plamo2Encoder, int_score
from tui_tok.tokenizer.plamo2.reference import ReferenceEncoder


class LiteralPlamo2:
    """The ids of ``plamo2/reference.py`` (llama.cpp's suffix table and DP, line by line)."""

    def __init__(self, vocab: Vocab) -> None:
        self.reference = ReferenceEncoder(vocab)

    def encode(self, data: bytes) -> list[int]:
        return [p[0] for p in self.reference.encode_fragment(data, after_special=True)]


@cache
def fixture() -> tuple[Vocab, Plamo2Encoder, LiteralPlamo2]:
    vocab = vocab_from_plain(plamo2_metadata())
    return vocab, Plamo2Encoder(vocab), LiteralPlamo2(vocab)


def names(ids: list[int]) -> list[str]:
    toks = plamo2_tokens()
    return [toks[i][0] for i in ids]


def assert_matches_literal(enc: Plamo2Encoder, literal: LiteralPlamo2, data: bytes) -> None:
    """Same ids as the literal port, spans in order and inside ``data``."""
    pieces = enc.encode_fragment(data, after_special=True)
    assert [p[0] for p in pieces] == literal.encode(data)
    prev = 0
    for _, s, e in pieces:
        assert prev <= s <= e <= len(data)
        prev = e


@pytest.mark.parametrize("data,expected", CASES, ids=[repr(c[0]) for c in CASES])
def test_hand_derived(data: bytes, expected: list[int]) -> None:
    _, enc, literal = fixture()
    got = [p[0] for p in enc.encode_fragment(data, after_special=True)]
    assert names(got) == names(expected)
    assert literal.encode(data) == expected


@pytest.mark.parametrize(
    "score,expected",
    [
        (-1 / 32, -313),
        (1 / 32, 313),
        (5 / 32, 1563),
        (-1000.0, -10_000_000),
        (-2000.0, -20_000_000),
        (1e6, -(1 << 31)),
        (float("nan"), INVALID_SCORE),
        (float("inf"), INVALID_SCORE),
        (0.0, 0),
    ],
)
def test_int_score(score: float, expected: int) -> None:
    assert int_score(float(np.float32(score))) == expected


def test_missing_byte_token_is_a_load_error() -> None:
    meta = plamo2_metadata()
    meta["tokenizer.ggml.token_type"] = meta["tokenizer.ggml.token_type"].copy()
    meta["tokenizer.ggml.token_type"][5 + 0x41] = 1  # <0x41> becomes NORMAL
    with pytest.raises(VocabError, match="<0x41>"):
        Plamo2Encoder(vocab_from_plain(meta))


def test_byte_token_at_id_zero_counts_as_missing() -> None:
    meta = plamo2_metadata()
    toks = meta["tokenizer.ggml.tokens"]
    types = meta["tokenizer.ggml.token_type"].copy()
    toks[0], toks[5] = toks[5], toks[0]  # <0x00> moves to id 0
    types[0], types[5] = types[5], types[0]
    meta["tokenizer.ggml.token_type"] = types
    with pytest.raises(VocabError, match="<0x00>"):
        Plamo2Encoder(vocab_from_plain(meta))


def test_lowercase_hex_byte_tokens_are_accepted() -> None:
    meta = plamo2_metadata()
    meta["tokenizer.ggml.tokens"][5 + 0xAB] = "<0xab>"
    enc = Plamo2Encoder(vocab_from_plain(meta))
    assert enc.bytes[0xAB] == 5 + 0xAB


def test_spans() -> None:
    _, enc, _ = fixture()
    data = "\ufeffab日本".encode() + b"\x80"  # BOM is a gap; 0x80 -> U+FFFD -> 3 byte tokens on 1 byte
    pieces = enc.encode_fragment(data, after_special=True)
    assert [(s, e) for _, s, e in pieces] == [(3, 5), (5, 11), (11, 12), (12, 12), (12, 12)]


def test_fixture_gguf_round_trip(tmp_path: Path) -> None:
    """The fixture written as a GGUF file loads back to the same encoder results."""
    path = write_plamo2_gguf(tmp_path / "plamo2-fixture.gguf")
    enc = Plamo2Encoder(vocab_from_file(path))
    for data, expected in CASES:
        assert [p[0] for p in enc.encode_fragment(data, after_special=True)] == expected


ALPHABET = "abcxypqzwhk日本語[PAD1]3<|plamo:op|>▁ \ufeffé🦙"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=30))
def test_matches_literal_port(text: str) -> None:
    _, enc, literal = fixture()
    data = text.encode()
    assert [p[0] for p in enc.encode_fragment(data, after_special=True)] == literal.encode(data)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.text(max_size=40), st.text(alphabet=ALPHABET, max_size=40)))
def test_valid_text_decodes_back(text: str) -> None:
    vocab, enc, _ = fixture()
    data = text.encode()
    pieces = enc.encode_fragment(data, after_special=True)
    out = b""
    prev = 0
    for tid, s, e in pieces:
        assert prev <= s <= e <= len(data)
        prev = e
        tok = vocab.tokens[tid]
        if int(vocab.types[tid]) == 6:
            out += bytes([int(tok[3:5], 16)])
        else:
            assert tok.encode() == data[s:e]
            out += tok.encode()
    assert out == data.removeprefix("\ufeff".encode())


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=40))
def test_arbitrary_bytes(data: bytes) -> None:
    _, enc, literal = fixture()
    assert_matches_literal(enc, literal, data)


@pytest.fixture(scope="module")
def fixture_tokenizer(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    loader = pytest.importorskip("tui_tok.loader")
    return loader.load_tokenizer(write_plamo2_gguf(tmp_path_factory.mktemp("plamo2") / "plamo2-fixture.gguf"))


@pytest.mark.parametrize("add_special", [False, True])
@pytest.mark.parametrize("parse_special", [False, True])
def test_through_tokenizer(fixture_tokenizer, add_special: bool, parse_special: bool) -> None:  # type: ignore[no-untyped-def]
    """PLaMo2 never adds BOS/EOS; its control tokens are DP candidates, so splitting them changes nothing here."""
    for data, expected in CASES:
        assert fixture_tokenizer.encode(data, add_special=add_special, parse_special=parse_special) == expected, data


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=30))
def test_tokenizer_round_trip(fixture_tokenizer, text: str) -> None:  # type: ignore[no-untyped-def]
    ids = fixture_tokenizer.encode(text, add_special=True, parse_special=False)
    assert fixture_tokenizer.detokenize(ids) == text.encode().removeprefix("\ufeff".encode())


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=ALPHABET, min_size=64, max_size=300), st.binary(max_size=8))
def test_long_inputs_cut_into_pieces_match_literal_port(text: str, junk: bytes) -> None:
    """Inputs past 64 code points are cut where no token spans and solved piece by piece."""
    _, enc, literal = fixture()
    data = text.encode() + junk + text[::-1].encode()
    assert_matches_literal(enc, literal, data)
