"""``rwkv/greedy.py`` (many short chunks matched at once in numpy) against the plain walk."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st
from test_rwkv import _tiny, world

from tui_tok.tokenizer.arrays.chunks import word_view
from tui_tok.tokenizer.rwkv.greedy import greedy_chunks
from tui_tok.tokenizer.rwkv.table import MAX_LEN, TokenTable, keys

# bytes that stress the two-word keys: NUL (zero padding), 0xFF, lengths around 7/8/15
_TOKEN = st.binary(min_size=1, max_size=MAX_LEN) | st.lists(
    st.sampled_from([0, 1, 0x80, 0xFF]), min_size=1, max_size=MAX_LEN
).map(bytes)


def _twins(base: bytes) -> list[bytes]:
    """Tokens differing from ``base`` only in the last byte, or by a trailing NUL."""
    return [base[:-1] + bytes([b]) for b in (0, 1, 0x80, 0xFF)] + ([base + b"\0"] if len(base) < MAX_LEN else [])


@settings(max_examples=200, deadline=None)
@given(st.sets(_TOKEN, min_size=1, max_size=60) | _TOKEN.map(lambda b: set(_twins(b))), st.lists(_TOKEN, max_size=30))
def test_table_finds_exactly_the_tokens(tokens: set[bytes], probes: list[bytes]) -> None:
    token_ids = {t: i * 3 for i, t in enumerate(sorted(tokens))}
    table = TokenTable.build(token_ids)
    queries = sorted(tokens) + probes + [t + b"\0" for t in tokens if len(t) < MAX_LEN] + [t[:-1] for t in tokens]
    queries = [q for q in queries if q]
    text = b"".join(queries)
    at = np.cumsum([0, *map(len, queries)])[:-1].astype(np.int64)
    got = table.find(*keys(word_view(text), at, np.array(list(map(len, queries)), dtype=np.int64)))
    assert got.tolist() == [token_ids.get(q, -1) for q in queries]


@st.composite
def _chunks(draw: st.DrawFn, pieces: st.SearchStrategy[bytes]) -> tuple[bytes, list[int], list[int]]:
    chunks = [c[:MAX_LEN] for c in draw(st.lists(pieces, min_size=1, max_size=40)) if c]
    if not chunks:
        chunks = [b"a"]
    at = np.cumsum([0, *map(len, chunks)])[:-1].tolist()
    return b"".join(chunks), at, [len(c) for c in chunks]


@settings(max_examples=200, deadline=None)
@given(_chunks(st.binary(min_size=1, max_size=MAX_LEN) | st.text(min_size=1, max_size=6).map(str.encode)))
def test_greedy_chunks_equal_the_walk_on_world(case: tuple[bytes, list[int], list[int]]) -> None:
    text, at, size = case
    _, enc = world()
    got = greedy_chunks(text, np.array(at), np.array(size), enc._tables().greedy, unk_id=enc.unk_id)
    assert got is not None  # rwkv-world holds every byte: no dead end
    ids, counts = got
    walks = [[t for t, _, _ in enc._walk(text[a : a + n])] for a, n in zip(at, size)]
    assert counts.tolist() == list(map(len, walks))
    assert ids.tolist() == [t for w in walks for t in w]


@settings(max_examples=200, deadline=None)
@given(_chunks(st.lists(st.sampled_from([b"a", b"b", b"c", b"z", b"ab", b"cd"]), min_size=1, max_size=8).map(b"".join)))
def test_greedy_chunks_unknown_bytes_and_dead_ends(case: tuple[bytes, list[int], list[int]]) -> None:
    """'z' starts no token (the unk id); 'c' starts only "cd" (a dead end unless d follows)."""
    text, at, size = case
    enc = _tiny(["a", "abc", "b", "cd", "[unk]"], unk=4)
    got = greedy_chunks(text, np.array(at), np.array(size), enc._tables().greedy, unk_id=enc.unk_id)
    try:
        walks = [[t for t, _, _ in enc._walk(text[a : a + n])] for a, n in zip(at, size)]
    except Exception:
        assert got is None
        return
    assert got is not None
    assert got[0].tolist() == [t for w in walks for t in w]
