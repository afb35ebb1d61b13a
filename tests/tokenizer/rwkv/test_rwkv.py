"""RWKV encoder against llama.cpp: conformance rows, unescaping quirks, trie invariants."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings, strategies as st

from fixtures.simple_vocab import row_ids, tokenizer_mismatches, vocab_from_file, vocab_from_plain
from support import conformance_rows, vocab_file
from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.rwkv.encoder import RwkvEncoder, unescape_token

NAME = "rwkv-world-vocab"
ROWS = conformance_rows(NAME)


@cache
def world() -> tuple[Vocab, RwkvEncoder]:
    vocab = vocab_from_file(vocab_file(NAME).path)
    return vocab, RwkvEncoder(vocab)


@cache
def world_bytes() -> frozenset[bytes]:
    return frozenset(unescape_token(t) for t in world()[0].tokens)


def test_conformance_file_present() -> None:
    assert len(ROWS) > 200


@pytest.mark.parametrize("row", ROWS, ids=[f"{i}-{r['text'][:20]!r}" for i, r in enumerate(ROWS)])
def test_conformance(row: dict) -> None:
    vocab, enc = world()
    assert row_ids(vocab, enc, row) == row["ids"]


def test_conformance_through_real_tokenizer() -> None:
    assert tokenizer_mismatches(vocab_file(NAME).path, ROWS) == []


@pytest.mark.parametrize(
    "escaped,raw",
    [
        (r"\t\n\r", b"\t\n\r"),
        (r"\x00\xff\x7f", b"\x00\xff\x7f"),
        (r"\\", b"\\"),
        (r"\'\"", b"'\""),
        ("plain", b"plain"),
        # only lowercase hex digits mean themselves: 'A' is 'A'-'0' = 17, so \xAB = (17<<4)+18 mod 256
        (r"\xAB", bytes([((17 << 4) + 18) & 0xFF])),
        (r"\xg0", bytes([((ord("g") - ord("a") + 10) << 4) & 0xFF])),
        # a non-ASCII byte is a negative (signed) char: c - '0' mod 256
        ("\\x\u00e90", bytes([((((0xC3 - 256 - 48) & 0xFF) << 4) + (0xA9 - 256 - 48)) & 0xFF, ord("0")])),
        # escapes cut off by the end produce nothing
        ("a\\", b"a"),
        (r"a\x4", b"a"),
    ],
)
def test_unescape(escaped: str, raw: bytes) -> None:
    assert unescape_token(escaped) == raw


def test_every_world_token_unescapes() -> None:
    vocab, _ = world()
    raws = [unescape_token(t) for t in vocab.tokens]
    assert raws[1] == b"\x00" and raws[256] == b"\xff"
    assert all(raws[1 + b] == bytes([b]) for b in range(256))


def _tiny(tokens: list[str], unk: int | None = None) -> RwkvEncoder:
    meta: dict = {"tokenizer.ggml.model": "rwkv", "tokenizer.ggml.tokens": tokens}
    if unk is not None:
        meta["tokenizer.ggml.unknown_token_id"] = unk
    return RwkvEncoder(vocab_from_plain(meta))


def test_unknown_byte_is_null_id_by_default() -> None:
    enc = _tiny(["a", "ab"])
    assert enc.encode_fragment(b"zab", after_special=False) == [(-1, 0, 1), (1, 1, 3)]


def test_unknown_byte_uses_unk_key() -> None:
    enc = _tiny(["a", "ab", "?"], unk=2)
    assert enc.encode_fragment(b"z", after_special=False) == [(2, 0, 1)]


def test_later_id_wins_for_same_bytes() -> None:
    enc = _tiny(["a", r"\x61"])
    assert enc.encode_fragment(b"aa", after_special=False) == [(1, 0, 1), (1, 1, 2)]


def test_prefix_without_token_would_hang_llama_cpp() -> None:
    enc = _tiny(["ab"])
    with pytest.raises(TokenizeError, match="restart"):
        enc.encode_fragment(b"ac", after_special=False)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=80), st.text(max_size=40).map(lambda s: s.encode("utf-8", "surrogatepass"))))
def test_spans_tile_input_and_match_token_bytes(data: bytes) -> None:
    vocab, enc = world()
    pieces = enc.encode_fragment(data, after_special=False)
    pos = 0
    for tid, s, e in pieces:
        assert s == pos and e > s
        assert unescape_token(vocab.tokens[tid]) == data[s:e]
        pos = e
    assert pos == len(data)


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=1, max_size=40))
def test_greedy_is_longest_match(data: bytes) -> None:
    _, enc = world()
    tid, s, e = enc.encode_fragment(data, after_special=False)[0]
    raws = world_bytes()
    assert not any(data[:k] in raws for k in range(e + 1, len(data) + 1))


@st.composite
def _token_text(draw: st.DrawFn) -> bytes:
    """Runs of world tokens glued together (long chunks, repeats) with random bytes between."""
    vocab, _ = world()
    picks = draw(st.lists(st.integers(1, len(vocab.tokens) - 1), max_size=30))
    glue = draw(st.lists(st.binary(max_size=3), min_size=len(picks), max_size=len(picks)))
    return b"".join(unescape_token(vocab.tokens[p]) + g for p, g in zip(picks, glue)) * draw(st.integers(1, 3))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=80).map(lambda s: s.encode("utf-8", "surrogatepass")) | _token_text())
def test_ids_path_equals_walk(data: bytes) -> None:
    """``encode_fragment_ids`` (distinct chunks in arrays, whole-chunk lookups) == the plain walk."""
    _, enc = world()
    assert enc.encode_fragment_ids(data) == [tid for tid, _, _ in enc._walk(data)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"ab", b"abc", b"z", b"b", b"c", b"cd", b"ac"]), max_size=40).map(b"".join))
def test_ids_path_equals_walk_with_unknown_bytes_and_dead_ends(data: bytes) -> None:
    """Unknown bytes (unk) and bytes that start a token but match none (an error) alike."""
    enc = _tiny(["a", "abc", "b", "cd"], unk=1)  # "c" alone is a dead end
    try:
        expected = [tid for tid, _, _ in enc._walk(data)]
    except TokenizeError as exc:
        with pytest.raises(TokenizeError, match=str(exc).split(":")[0]):
            enc.encode_fragment_ids(data)
    else:
        assert enc.encode_fragment_ids(data) == expected


def _unescape_loop(text: str) -> bytes:
    """llama.cpp's ``llama_unescape_rwkv_token`` byte loop, transcribed (the regex's reference)."""
    out, escaping, remaining, acc = bytearray(), False, 0, 0
    for c in text.encode("utf-8", "surrogateescape"):
        if remaining:
            signed = c - 256 if c >= 0x80 else c
            acc = ((acc << 4) + ((signed - ord("a") + 10) if signed >= ord("a") else (signed - ord("0")))) & 0xFF
            remaining -= 1
            if not remaining:
                out.append(acc)
                acc = 0
        elif escaping:
            escaping = False
            if c == ord("x"):
                remaining = 2
            else:
                out.append({ord("t"): 9, ord("n"): 10, ord("r"): 13}.get(c, c))
        elif c == ord("\\"):
            escaping = True
        else:
            out.append(c)
    return bytes(out)


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list('\\xtnr0aAfFg9\n\u00e9\u4e2d \x27"b7')), max_size=12) | st.text(max_size=12)
)
def test_unescape_equals_llama_loop(text: str) -> None:
    assert unescape_token(text) == _unescape_loop(text)


def _trie_walk(tokens: list[bytes], text: bytes, unk: int) -> list[int] | None:
    """The longest match through a trie, as llama.cpp walks it; None where it would hang."""
    root: dict = {}
    for tid, raw in enumerate(tokens):
        node = root
        for b in raw:
            node = node.setdefault(b, {})
        node[-1] = tid
    out, pos = [], 0
    while pos < len(text):
        node, best, end, j = root.get(text[pos]), -1, pos, pos
        if node is None:
            out.append(unk)
            pos += 1
            continue
        while node is not None:
            best, end = (node[-1], j + 1) if -1 in node else (best, end)
            j += 1
            node = node.get(text[j]) if j < len(text) else None
        if best < 0:
            return None
        out.append(best)
        pos = end
    return out


_SMALL = st.binary(min_size=1, max_size=6).map(lambda b: bytes(x % 4 + 97 for x in b))


def _escaped(raw: bytes, escape: bool) -> str:
    return "".join(f"\\x{b:02x}" for b in raw) if escape else raw.decode()


def _escaped_entry(entry: tuple[bytes, bool]) -> str:
    return _escaped(*entry)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_SMALL, st.booleans()), min_size=1, max_size=25, unique_by=_escaped_entry),
    st.lists(_SMALL, max_size=20).map(b"".join),
)
def test_lookup_walk_equals_trie_walk(entries: list[tuple[bytes, bool]], text: bytes) -> None:
    """The 3-byte-prefix bound and dict lookups find what llama.cpp's trie finds (random vocabs
    over 4 letters: shared prefixes, the same bytes twice (escaped once), bytes that start only
    long tokens)."""
    tokens = [raw for raw, _ in entries]
    enc = _tiny([_escaped(raw, esc) for raw, esc in entries], unk=0)
    expected = _trie_walk(tokens, text, 0)
    if expected is None:
        with pytest.raises(TokenizeError):
            enc.encode_fragment_ids(text)
        with pytest.raises(TokenizeError):
            enc.encode_fragment(text, after_special=False)
    else:
        assert enc.encode_fragment_ids(text) == expected
        assert [t for t, _, _ in enc.encode_fragment(text, after_special=False)] == expected


@pytest.mark.parametrize("unk", [None, 0, 1, 4])  # NULL; "a" (1 byte); "abc" (3 bytes: spans not from lengths); "?"
@settings(max_examples=100, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b"ab", b"abc", b"z", b"b", b"c", b"cd", b"ac", b"?"]), max_size=40).map(
        b"".join
    )
)
def test_spans_from_the_ids_path_equal_the_walk(unk: int | None, data: bytes) -> None:
    """``encode_fragment`` takes its ids from the ids path and its spans from the token
    lengths (an unknown byte: one); same pieces, and the same error, as the plain walk."""
    enc = _tiny(["a", "abc", "b", "cd", "?"], unk=unk)  # "c" alone is a dead end
    try:
        expected = enc._walk(data)
    except TokenizeError as exc:
        with pytest.raises(TokenizeError, match=str(exc).split(":")[0]):
            enc.encode_fragment(data, after_special=False)
    else:
        assert enc.encode_fragment(data, after_special=False) == expected
    assert (enc._tables().lengths is None) == (unk == 1)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=80).map(lambda s: s.encode("utf-8", "surrogatepass")) | _token_text())
def test_world_spans_equal_the_walk(data: bytes) -> None:
    _, enc = world()
    assert enc.encode_fragment(data, after_special=False) == enc._walk(data)
