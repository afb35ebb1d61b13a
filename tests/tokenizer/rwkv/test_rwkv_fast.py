"""The RWKV fast paths against the plain ones: bulk unescape, the token table's overflow, tokens
longer than 15 bytes in numpy, and ``encode_fragment_ids`` with every round in numpy."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from unittest.mock import patch

import numpy as np
from hypothesis import given, settings, strategies as st
from test_rwkv import world

from tui_tok.tokenizer.arrays.chunks import word_view
from tui_tok.tokenizer.rwkv import encoder
from tui_tok.tokenizer.rwkv.distinct import distinct_long
from tui_tok.tokenizer.rwkv.greedy import greedy_chunks
from tui_tok.tokenizer.rwkv.long import LongTokens
from tui_tok.tokenizer.rwkv.table import MAX_LEN, TokenTable, chunk_keys, keys
from tui_tok.tokenizer.rwkv.unescape import _PLAIN_ESCAPES, all_plain, unescape_all, unescape_token

# escapes llama.cpp reads oddly (uppercase hex, cut off), quotes, non-ASCII, a raw newline (the
# bulk path's separator), lone surrogates (surrogateescape: a raw byte)
_ESCAPE_TEXT = st.lists(
    st.sampled_from(list("\\xnrtab0f9AFg'\"\n é") + ["\udc80", "\udcff", "\\x4", "\\xe4"]), max_size=12
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ESCAPE_TEXT, max_size=30))
def test_unescape_all_equals_one_by_one(texts: list[str]) -> None:
    assert unescape_all(texts) == [unescape_token(t) for t in texts]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([b"\\", b"x", b"n", b"'", b"0", b"f", b"g", b"F", b"\n", b"\xff"]), max_size=16).map(
        b"".join
    )
)
def test_all_plain_equals_the_regex(data: bytes) -> None:
    assert all_plain(data) == bool(_PLAIN_ESCAPES.fullmatch(data))


def test_every_world_token_unescapes_in_bulk() -> None:
    vocab, _ = world()
    assert unescape_all(list(vocab.tokens)) == [unescape_token(t) for t in vocab.tokens]


def test_world_table_has_crowded_homes() -> None:
    _, enc = world()
    assert enc._tables().greedy.overflow.ids.size > 1000  # the overflow and its flags are in use


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(100, 3000), st.sampled_from([4, 256]))
def test_table_with_crowded_homes(seed: int, n: int, alphabet: int) -> None:
    """Hundreds of random tokens (over 4 bytes: many share prefixes): homes taken twice or
    more, the overflow, its flags; probes of every token, of each cut short by one byte, of
    each run on by a NUL, and of random strings."""
    rng = np.random.default_rng(seed)
    tokens = {rng.integers(0, alphabet, rng.integers(1, MAX_LEN + 1)).astype(np.uint8).tobytes() for _ in range(n)}
    token_ids = {t: i for i, t in enumerate(sorted(tokens))}
    table = TokenTable.build(token_ids)
    probes = [rng.integers(0, alphabet, rng.integers(1, MAX_LEN + 1)).astype(np.uint8).tobytes() for _ in range(200)]
    queries = (
        sorted(tokens)
        + probes
        + [t[:-1] for t in tokens if len(t) > 1]
        + [t + b"\0" for t in tokens if len(t) < MAX_LEN]
    )
    text = b"".join(queries)
    at = np.cumsum([0, *map(len, queries)])[:-1].astype(np.int64)
    got = table.find(*keys(word_view(text), at, np.array(list(map(len, queries)), dtype=np.int64)))
    assert got.tolist() == [token_ids.get(q, -1) for q in queries]


_LONG_ALPHABET = st.sampled_from([b"a", b"b", b" ", b"\n"])


@settings(max_examples=200, deadline=None)
@given(
    st.sets(st.lists(_LONG_ALPHABET, min_size=MAX_LEN + 1, max_size=40).map(b"".join), min_size=1, max_size=12),
    st.lists(_LONG_ALPHABET, min_size=16, max_size=80).map(b"".join),
    st.data(),
)
def test_long_tokens_match_the_longest(tokens: set[bytes], text: bytes, data: st.DataObject) -> None:
    """Runs over a tiny alphabet: many tokens share their first 16 bytes (one head)."""
    raws = sorted(tokens)
    sizes = np.array([len(r) for r in raws], dtype=np.int64)
    table = LongTokens.build(b"".join(raws), np.cumsum(sizes) - sizes, sizes, np.arange(len(raws), dtype=np.int64) * 7)
    here = np.arange(len(text) - 15, dtype=np.int64)
    rest = np.array([data.draw(st.integers(16, len(text) - h)) for h in here.tolist()], dtype=np.int64)
    k, tid, size = table.matches(word_view(text), here, rest)
    expected = {}
    for h, r in zip(here.tolist(), rest.tolist()):
        fits = [i for i, raw in enumerate(raws) if len(raw) <= r and text.startswith(raw, h)]
        if fits:
            best = max(fits, key=lambda i: len(raws[i]))
            expected[h] = (best * 7, len(raws[best]))
    assert {h: (t, s) for h, t, s in zip(here[k].tolist(), tid.tolist(), size.tolist())} == expected


@cache
def _world_raws() -> tuple[list[bytes], list[bytes]]:
    """rwkv-world's tokens, and those longer than 15 bytes."""
    raws = list(world()[1]._tables().token_ids)
    return raws, [r for r in raws if len(r) > MAX_LEN]


@st.composite
def _world_text(draw: st.DrawFn) -> bytes:
    """World tokens glued together, a third of them longer than 15 bytes (often cut short or
    run on), indentation runs, random bytes."""
    raws, longs = _world_raws()
    parts = []
    for _ in range(draw(st.integers(1, 30))):
        kind = draw(st.integers(0, 5))
        if kind <= 1:
            tok = longs[draw(st.integers(0, len(longs) - 1))]
            parts.append(tok[: draw(st.integers(1, len(tok)))] if kind == 0 else tok + draw(st.binary(max_size=2)))
        elif kind == 2:
            parts.append(b"\n" + b" " * draw(st.integers(0, 60)))
        elif kind == 3:
            parts.append(draw(st.binary(max_size=4)))
        else:
            parts.append(raws[draw(st.integers(0, len(raws) - 1))])  # (sampled_from a 65k list: slow)
    return b"".join(parts)


@settings(max_examples=200, deadline=None)
@given(st.lists(_world_text(), min_size=1, max_size=6))
def test_greedy_chunks_of_any_length_equal_the_walk(texts: list[bytes]) -> None:
    """Chunks longer than 15 bytes, with tokens longer than 15, all rounds in numpy."""
    _, enc = world()
    texts = [t for t in texts if t] or [b"a"]
    text = b"".join(texts)
    at = np.cumsum([0, *map(len, texts)])[:-1].astype(np.int64)
    got = greedy_chunks(
        text, at, np.array(list(map(len, texts)), dtype=np.int64), enc._tables().greedy, unk_id=enc.unk_id
    )
    assert got is not None
    walks = [[t for t, _, _ in enc._walk(c)] for c in texts]
    assert got[1].tolist() == list(map(len, walks))
    assert got[0].tolist() == [t for w in walks for t in w]


@settings(max_examples=200, deadline=None)
@given(st.lists(_world_text(), min_size=1, max_size=8).map(b"".join), st.sampled_from([0, 3, 64]))
def test_ids_path_equals_walk_whatever_the_python_tail(data: bytes, few: int) -> None:
    """``encode_fragment_ids`` == the walk with the rounds' Python tail taking 0, 3 or 64 chunks."""
    _, enc = world()
    with patch.object(enc, "paths", replace(enc.paths, rwkv_python_max=few)):
        assert enc.encode_fragment_ids(data) == [tid for tid, _, _ in enc._walk(data)]


@settings(max_examples=150, deadline=None)
@given(st.lists(_world_text(), min_size=1, max_size=8).map(b"".join), st.sampled_from([1, 2, 5, 64]))
def test_ids_path_equals_walk_in_blocks(data: bytes, block: int) -> None:
    """The byte pairs and the chunks taken ``_BLOCK`` at a time (1, 2, 5: many blocks, a last
    one cut short, misses in several) give the walk's ids, and ``encode_fragment``'s chunks."""
    _, enc = world()
    with patch.object(encoder, "_BLOCK", block):
        assert enc.encode_fragment_ids(data) == [tid for tid, _, _ in enc._walk(data)]
        if len(data) >= 2:
            assert enc.encode_fragment(data, after_special=False) == enc._walk(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=60), st.data())
def test_chunk_keys_equal_keys(text: bytes, data: st.DataObject) -> None:
    """``chunk_keys`` from the strided view (second word read for long chunks only) == ``keys``
    on a contiguous copy with the size capped at 15, up to the text's last byte."""
    at = np.array(data.draw(st.lists(st.integers(0, len(text) - 1), min_size=1, max_size=20)), dtype=np.int64)
    size = np.array([data.draw(st.integers(1, len(text) - a)) for a in at.tolist()], dtype=np.int64)
    view = word_view(text)
    got = chunk_keys(view, at, size)
    want = keys(np.ascontiguousarray(view), at, np.minimum(size, MAX_LEN))
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([b"a", b"b", b"\0", b"\xff"]), min_size=16, max_size=70).map(b"".join),
        min_size=1,
        max_size=12,
    ),
    st.lists(st.integers(0, 11), max_size=30),
)
def test_distinct_long_chunks_are_exact(pool: list[bytes], picks: list[int]) -> None:
    """Long chunks (NUL and 0xFF stress the masked words), repeated: same group iff same bytes."""
    chunks = pool + [pool[i % len(pool)] for i in picks]
    text = b"".join(chunks)
    at = np.cumsum([0, *map(len, chunks)])[:-1].astype(np.int64)
    size = np.array(list(map(len, chunks)), dtype=np.int64)
    got = distinct_long(np.ascontiguousarray(word_view(text)), at, size)
    assert got is not None
    occ, rep = got
    firsts = [chunks[r] for r in rep.tolist()]
    assert len(set(firsts)) == len(firsts)
    assert [firsts[o] for o in occ.tolist()] == chunks
