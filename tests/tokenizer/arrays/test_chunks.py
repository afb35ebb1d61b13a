"""``distinct_chunks`` / ``chain_ids`` against the plain Python they replace (slice, dedupe, chain)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tui_tok.tokenizer.arrays.chunks import chain_ids, distinct_chunks, hash_unique

# bytes that stress the packed keys: NUL (a short chunk padded with zeros), 0xFF (the top bit)
_BYTES = st.binary(max_size=120) | st.lists(st.sampled_from([0, 1, 0x7F, 0x80, 0xFF]), max_size=120).map(bytes)


@st.composite
def cut_text(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    text = draw(_BYTES)
    if not text:
        return text, [0]
    sizes = st.integers(1, 40) | st.sampled_from([7, 8, 15, 16, 17])
    starts = [0]
    while True:
        nxt = starts[-1] + draw(sizes)
        if nxt >= len(text):
            return text, starts
        starts.append(nxt)


# near-twins the packed keys must tell apart: trailing NULs (length), the top bit of byte 7 or 15
_TWINS = [
    b"a",
    b"a\0",
    b"a\0\0",
    b"abcdefg\x7f",
    b"abcdefg\xff",
    b"abcdefg\xffz",
    b"abcdefg\x7fz",
    b"0123456789abcde\x7f",
    b"0123456789abcde\xff",
    b"\0" * 7,
    b"\0" * 8,
    b"\0" * 15,
    b"\0" * 16,
]


@st.composite
def twin_text(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    chunks = draw(st.lists(st.sampled_from(_TWINS), min_size=1, max_size=30))
    starts = [sum(map(len, chunks[:i])) for i in range(len(chunks))]
    return b"".join(chunks), starts


def _chunks(text: bytes, starts: list[int]) -> list[bytes]:
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])] if text else []


@settings(max_examples=300, deadline=None)
@given(cut_text() | twin_text())
def test_distinct_chunks_names_every_chunk(case: tuple[bytes, list[int]]) -> None:
    text, starts = case
    occ, distinct = distinct_chunks(text, starts)
    chunks = _chunks(text, starts)
    assert [distinct[i] for i in occ.tolist()] == chunks
    assert sorted(distinct) == sorted(set(chunks))  # each distinct chunk once


@settings(max_examples=200, deadline=None)
@given(cut_text(), st.integers(0, 3))
def test_chain_ids_is_the_concatenation(case: tuple[bytes, list[int]], spread: int) -> None:
    text, starts = case
    occ, distinct = distinct_chunks(text, starts)
    ids = [tuple(range(-1, (len(c) + i) % (spread + 2))) for i, c in enumerate(distinct)]  # some empty tuples
    expected = [t for c in _chunks(text, starts) for t in ids[distinct.index(c)]]
    assert chain_ids(occ, ids) == expected


def test_repeats_of_every_length_class_are_shared() -> None:
    word = {n: bytes(range(200, 200 + n)) for n in (3, 7, 8, 15, 16, 40)}
    starts, text = [], b""
    for n in (3, 7, 8, 15, 16, 40) * 3:
        starts.append(len(text))
        text += word[n]
    occ, distinct = distinct_chunks(text, starts)
    assert len(distinct) == 6 and len(set(occ.tolist())) == 6


def _check_unique(key: np.ndarray, key2: np.ndarray | None) -> None:
    values = list(zip(key.tolist(), key2.tolist())) if key2 is not None else key.tolist()
    inverse, first = hash_unique(key, key2)
    assert first.tolist() == sorted(first.tolist())
    assert len(first) == len(set(values))
    assert [values[first[i]] for i in inverse.tolist()] == values  # each position names its value


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1) | st.sampled_from([0, 1, 2**63, 2**64 - 1]), max_size=300), st.booleans())
def test_hash_unique_names_every_value(values: list[int], pairs: bool) -> None:
    key = np.array(values, dtype=np.uint64)
    key2 = np.array(values[::-1], dtype=np.uint64) if pairs else None
    _check_unique(key, key2)


def test_hash_unique_with_many_collisions() -> None:
    """Thousands of values in a table twice their number: many slots collide, several rounds."""
    rng = np.random.default_rng(7)
    key = rng.integers(0, 5000, size=20000, dtype=np.uint64) * np.uint64(0x100000001)
    _check_unique(key, None)
    _check_unique(key, key[::-1].copy())
