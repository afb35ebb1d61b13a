"""RWKV spans as int64 columns (``RwkvEncoder.encode_fragment_arrays``, what ``tokenize_arrays``
and ``tokenize`` use) == the plain walk's pieces, and they tile the text (RWKV is lossless)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fixtures.simple_vocab import vocab_from_file, vocab_from_plain
from support import vocab_file
from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.rwkv.encoder import RwkvEncoder, unescape_token
from tui_tok.tokenizer.tokenizer import Tokenizer

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def world() -> RwkvEncoder:
    return RwkvEncoder(vocab_from_file(vocab_file("rwkv-world-vocab").path))


@st.composite
def token_text(draw: st.DrawFn) -> bytes:
    """World tokens glued together with random bytes between (long chunks, repeats)."""
    tokens = world().vocab.tokens
    picks = draw(st.lists(st.integers(1, len(tokens) - 1), max_size=30))
    glue = draw(st.lists(st.binary(max_size=3), min_size=len(picks), max_size=len(picks)))
    return b"".join(unescape_token(tokens[p]) + g for p, g in zip(picks, glue)) * draw(st.integers(1, 3))


TEXT = st.binary(max_size=200) | st.text(max_size=80).map(lambda s: s.encode("utf-8", "surrogatepass")) | token_text()


def columns(pieces: list[tuple[int, int, int]]) -> list[list[int]]:
    return [list(c) for c in zip(*pieces)] if pieces else [[], [], []]


@SETTINGS
@given(TEXT)
def test_world_arrays_equal_the_walk_and_tile_the_text(data: bytes) -> None:
    enc = world()
    got = enc.encode_fragment_arrays(data)
    assert all(c.dtype == np.int64 for c in got)
    ids, starts, ends = (c.tolist() for c in got)
    assert [ids, starts, ends] == columns(enc._walk(data))
    assert b"".join(data[s:e] for s, e in zip(starts, ends)) == data  # lossless: the pieces tile it
    assert all(unescape_token(enc.vocab.tokens[t]) == data[s:e] for t, s, e in zip(ids, starts, ends) if t >= 0)


def tiny(tokens: list[str], unk: int | None) -> RwkvEncoder:
    meta: dict = {"tokenizer.ggml.model": "rwkv", "tokenizer.ggml.tokens": tokens}
    if unk is not None:
        meta["tokenizer.ggml.unknown_token_id"] = unk
    return RwkvEncoder(vocab_from_plain(meta))


@pytest.mark.parametrize("unk", [None, 0, 1, 4])  # NULL; "a" (1 byte); "abc" (3 bytes: spans not from lengths); "?"
@SETTINGS
@given(
    data=st.lists(st.sampled_from([b"a", b"ab", b"abc", b"z", b"b", b"c", b"cd", b"ac", b"?"]), max_size=40).map(
        b"".join
    )
)
def test_tiny_arrays_equal_the_walk(unk: int | None, data: bytes) -> None:
    """Unknown bytes, an unknown token longer than a byte (the walk), and dead ends (the
    walk's error, raised by both)."""
    enc = tiny(["a", "abc", "b", "cd", "?"], unk)
    try:
        expected = columns(enc._walk(data))
    except TokenizeError as exc:
        with pytest.raises(TokenizeError, match=str(exc).split(":")[0]):
            enc.encode_fragment_arrays(data)
        return
    assert [c.tolist() for c in enc.encode_fragment_arrays(data)] == expected


def test_tokenizer_tokens_come_from_the_columns() -> None:
    tok = Tokenizer(world().vocab)
    text = ("The quick brown fox 日本語 🦙 \x00\xff" * 500).encode("utf-8", "surrogateescape")
    ids, starts, ends = (c.tolist() for c in tok.tokenize_arrays(text))
    assert [ids, starts, ends] == columns(world()._walk(text))
    tokens = tok.tokenize(text)
    assert [(t.id, t.start, t.end) for t in tokens] == list(zip(ids, starts, ends))
    assert [t.kind for t in tokens] == [tok.token_kind(t.id) for t in tokens]
    assert [t.id for t in tokens] == tok.encode(text)
