"""The array paths of the WPM encoder against ``wpm/reference.py``: the numpy token table
against a dict, whole-word lookups against the token dict, loose byte word spans against the
reference's words, the classes and the batched normalising against its per-character rule."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from test_wpm_fast_word import encoder  # the bundled bert-bge's encoder, built once

from tui_tok.tokenizer.wpm.classify import classes_of, loose_word_spans, word_classes
from tui_tok.tokenizer.wpm.encoder import WpmEncoder
from tui_tok.tokenizer.wpm.reference import ReferenceEncoder
from tui_tok.tokenizer.wpm.table import MAX_KEY, TokenTable, _keys, _view

PHANTOM = "\u2581".encode()


@cache
def token_bytes() -> list[bytes]:
    return [t.encode("utf-8", "surrogateescape") for t in encoder().vocab.tokens]


def lookup_bytes(table: TokenTable, data: bytes, at: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """``table.lookup`` of the substrings ``data[at[k] : at[k] + lens[k]]`` (lens <= MAX_KEY)."""
    return table.lookup(*_keys(_view(data), at, lens), lens)


def test_table_finds_every_token() -> None:
    tokens = token_bytes()
    table = encoder()._token_table()
    assert table is not None
    lens = np.array([len(t) for t in tokens], dtype=np.int64)
    at = np.concatenate([[0], np.cumsum(lens)[:-1]])
    got = lookup_bytes(table, b"".join(tokens), at, lens)
    assert got.tolist() == list(range(len(tokens)))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.binary(min_size=1, max_size=MAX_KEY), min_size=1, max_size=30),
    st.lists(st.binary(min_size=1, max_size=MAX_KEY), max_size=30),
)
def test_table_equals_dict(tokens: list[bytes], probes: list[bytes]) -> None:
    """Equal texts: the last id wins (llama.cpp's token_to_id); absent keys: -1."""
    tokens = tokens + tokens[: len(tokens) // 2]  # some repeated texts
    table = TokenTable.build(tokens)
    assert table is not None
    expected = dict(zip(tokens, range(len(tokens))))
    asked = tokens + probes + [t[:-1] for t in tokens if len(t) > 1]
    lens = np.array([len(t) for t in asked], dtype=np.int64)
    at = np.concatenate([[0], np.cumsum(lens)[:-1]])
    assert lookup_bytes(table, b"".join(asked), at, lens).tolist() == [expected.get(t, -1) for t in asked]


def test_table_refuses_long_tokens() -> None:
    assert TokenTable.build([b"a" * (MAX_KEY + 1)]) is None


_MIXED = st.text(
    alphabet=st.sampled_from(list("abcXYZ019 ,.-_\t\n\u200b\u0301éÉ中日한\u00a0\x00\x01\ufffd\u3000—")), max_size=60
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123456789", min_size=1, max_size=24),
            st.sampled_from(["the", "The", "hello", "é", "中", ",", "x\u200by", "tokenizers"]),
        ),
        min_size=1,
        max_size=10,
    )
)
def test_whole_words_equal_token_dict(words: list[str]) -> None:
    """``whole_words``: the id of ``▁word`` for plain ASCII words that are a token, else -1."""
    enc = encoder()
    table = enc._token_table()
    assert table is not None
    raw = [w.encode() for w in words]
    data = b" ".join(raw)
    lens = np.array([len(w) for w in raw], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lens + 1)[:-1]])
    got = table.whole_words(data, starts, starts + lens, PHANTOM).tolist()
    tokens = dict(zip(token_bytes(), range(len(token_bytes()))))
    expected = [tokens.get(PHANTOM + w, -1) if w.isascii() else -1 for w in raw]
    assert got == expected


@settings(max_examples=400, deadline=None)
@given(_MIXED | st.text(max_size=40))
def test_loose_spans_hold_the_exact_words(text: str) -> None:
    """Loose byte spans are the exact words, each maybe with dropped characters at its edges."""
    data = text.encode("utf-8", "surrogatepass")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return
    starts, ends, ascii_drop = loose_word_spans(data)
    classes = word_classes(text)
    words = ReferenceEncoder(encoder().vocab).words([ord(ch) for ch in text])
    c_starts, c_ends = [first for (first, _), _ in words], [last + 1 for (_, last), _ in words]
    sizes = [len(ch.encode("utf-8", "surrogatepass")) for ch in text]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    assert len(starts) == len(c_starts)
    for a, b, ca, cb in zip(starts.tolist(), ends.tolist(), c_starts, c_ends):
        assert a <= offsets[ca] and offsets[cb] <= b
        extra = data[a : offsets[ca]] + data[offsets[cb] : b]
        assert set(word_classes(extra.decode())) <= {"d"}, (text, extra)
    assert ascii_drop == any(c == "d" and ord(ch) < 0x80 for c, ch in zip(classes, text))


def test_loose_spans_take_in_dropped_edges() -> None:
    """The test above meets words with dropped characters at their edges."""
    data = "ab\u200b cd".encode()
    starts, ends, _ = loose_word_spans(data)
    assert (starts.tolist(), ends.tolist()) == ([0, 6], [5, 8])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from(list("aZ9éÉöÅñ中한ḱ\u0301\u200b\u00adΣσς\U0001d400")), min_size=1, max_size=8),
        min_size=1,
        max_size=8,
    )
)
def test_normalise_all_equals_per_character(words: list[str]) -> None:
    enc = WpmEncoder(encoder().vocab)  # a fresh one: nothing learnt yet
    ref = ReferenceEncoder(enc.vocab)
    kept = [[ref._kind(ord(c)) for c in w] for w in words]
    assert enc._normalise_all(words) == ["".join(chr(cp) for kind, cp in w if kind != "drop") for w in kept]


@pytest.mark.parametrize("text", ["", " ", "\u200b", "a", "中", "a\u200b", "\u200ba", "、\u200b", "x\x01y z\x7f"])
def test_ids_path_on_edge_texts(text: str) -> None:
    enc = encoder()
    data = text.encode()
    ref = ReferenceEncoder(enc.vocab)
    assert enc.encode_fragment_ids(data) == [t for t, _, _ in ref.encode_fragment(data, after_special=True)]


@pytest.mark.parametrize("strip", [True, False])
def test_classes_equal_the_reference(strip: bool) -> None:
    """The array classes == the reference's per-character rule, on every code point of the
    ranges where classes change most (ASCII, Latin, marks, CJK, the 0x2B920 quirk) and a sample."""
    from fixtures.simple_vocab import vocab_from_plain

    ref = ReferenceEncoder(
        vocab_from_plain(
            {
                "tokenizer.ggml.model": "bert",
                "tokenizer.ggml.tokens": ["a"],
                "tokenizer.ggml.normalizer.strip_accents": strip,
            }
        )
    )
    assert ref.vocab.strip_accents is strip
    cps = np.concatenate(
        [np.arange(0, 0x3000), np.arange(0x2B800, 0x2B940), np.arange(0xFFF0, 0x10000), np.arange(0x3000, 0x110000, 97)]
    ).astype(np.int64)
    letter = {"space": ord(" "), "drop": ord("d"), "alone": ord("i"), "keep": ord("k")}
    assert [letter[ref._kind(cp)[0]] for cp in cps.tolist()] == classes_of(cps, strip).tolist()


def test_vocab_without_unk_gives_minus_one() -> None:
    """llama.cpp pushes token_unk() even when it is LLAMA_TOKEN_NULL: both paths give -1."""
    from fixtures.simple_vocab import vocab_from_plain

    enc = WpmEncoder(vocab_from_plain({"tokenizer.ggml.model": "bert", "tokenizer.ggml.tokens": ["▁ab", "c", "x"]}))
    enc.prepare()
    data = b"abc zz ab " * 3
    assert enc.encode_fragment_ids(data) == [
        t for t, _, _ in ReferenceEncoder(enc.vocab).encode_fragment(data, after_special=True)
    ]
    assert enc.encode_fragment_ids(data)[:4] == [0, 1, -1, 0]
