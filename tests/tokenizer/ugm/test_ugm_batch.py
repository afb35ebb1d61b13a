"""The UGM paths (units through the cache, the whole text at once, the numpy search of
ugm/pieces.py, ugm/batch.py and ugm/hash.py) against the faithful byte path: same ids and
spans on random text, in every whitespace mode."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from test_ugm import PIECES, encoder, flag_encoder, t5_vocab

from tui_tok.tokenizer.ugm.encoder import UgmEncoder
from tui_tok.tokenizer.ugm.hash import text_code_points
from tui_tok.tokenizer.ugm.reference import ReferenceEncoder

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ["t5-botchan-en-unigram-1000", "nomic-bert-moe"]
WORD = st.one_of(
    st.text(max_size=12),
    st.lists(st.sampled_from(PIECES + ["hello", "world", "ing", "▁the", "中文字", "\u0301"]), max_size=6).map("".join),
)
TEXT = st.lists(WORD, min_size=1, max_size=40).map(" ".join).map(lambda t: t.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("name", NAMES)
@given(data=TEXT)
@SETTINGS
def test_batched_units_equal_the_faithful_path(name: str, data: bytes) -> None:
    enc = encoder(name)
    enc.batch_from = 0  # a missing unit: the whole text at once
    try:
        enc.clear_cache()
        cold = enc.encode_fragment(data, after_special=False)
        assert cold == enc.encode_reference(data)
        enc.clear_cache()
        assert enc.encode_fragment_ids(data, after_special=False) == [p[0] for p in cold]
        assert enc.encode_fragment_ids(data, after_special=False) == [p[0] for p in cold]  # warm
    finally:
        enc.batch_from = 16


@pytest.mark.parametrize("prepend", [False, True])
@pytest.mark.parametrize("merge", [False, True])
@given(
    data=st.lists(
        st.sampled_from(["a", "b", "ab", "ｂ", " ", "  ", "\t", "e\u0301", "x", "①", "<u>", "中文", "\xff", "é"]),
        max_size=24,
    ).map(lambda p: "".join(p).encode("utf-8", "surrogateescape"))
)
@settings(max_examples=60, deadline=None)
def test_batched_units_in_every_whitespace_mode(prepend: bool, merge: bool, data: bytes) -> None:
    enc = flag_encoder(prepend, merge)
    enc.batch_from = 0
    try:
        enc.clear_cache()
        ref = enc.encode_reference(data)
        assert enc.encode_fragment(data, after_special=False) == ref
        enc.clear_cache()
        assert enc.encode_fragment_ids(data, after_special=False) == [p[0] for p in ref]
    finally:
        enc.batch_from = 16


@pytest.mark.parametrize("name", NAMES)
@given(
    texts=st.lists(
        st.one_of(
            st.text(max_size=20), st.lists(st.sampled_from(PIECES + ["▁", "▁the", "ing"]), max_size=8).map("".join)
        ),
        max_size=12,
    )
)
@SETTINGS
def test_batch_search_equals_the_reference_search(name: str, texts: list[str]) -> None:
    enc = encoder(name)
    t = enc.tables
    texts = [x.encode("utf-8", "replace").decode("utf-8") for x in texts]  # no lone surrogates
    ref = ReferenceEncoder(enc.vocab)
    for x in texts:
        data = x.encode("utf-8")
        got = enc._search(data, list(range(len(data) + 1)), exact=bool(t.max_exact_bytes))
        assert got is not None
        want = ref.search(data)
        assert got[0].tolist() == [p[0] for p in want]
        assert got[1].tolist() == [p[2] for p in want]


@given(tokens=st.sets(st.text(min_size=1, max_size=7), min_size=1, max_size=40), text=st.text(max_size=30))
@settings(max_examples=150, deadline=None)
def test_token_hash_finds_exactly_the_tokens(tokens: set[str], text: str) -> None:
    texts = sorted(tokens - {"<pad>", "</s>", "<unk>"})
    table = UgmEncoder(t5_vocab([(t, -1.0, 1) for t in texts])).token_hash
    index = {t: i + 3 for i, t in enumerate(texts)}  # after the three special tokens
    probe = text + "".join(texts)  # every token occurs, plus near misses around them
    groups = [(n, np.arange(len(probe) - n + 1)) for n in range(1, min(8, len(probe)) + 1)]
    for (n, pos), got in zip(groups, table.find(text_code_points(probe), groups)):
        assert got.tolist() == [index.get(probe[i : i + n], -1) for i in pos.tolist()]


@pytest.mark.parametrize("name", NAMES)
def test_huge_units_in_a_batch_take_the_per_unit_search(name: str) -> None:
    """Units over 512 bytes beside short ones: the same as the faithful path."""
    enc = encoder(name)
    data = ("hello world " * 30 + "中文字" * 300 + " " + "abc" * 400 + " the end").encode()
    enc.batch_from = 0
    try:
        enc.clear_cache()
        assert enc.encode_fragment(data, after_special=False) == enc.encode_reference(data)
        enc.clear_cache()
        assert enc.encode_fragment_ids(data, after_special=False) == [p[0] for p in enc.encode_reference(data)]
    finally:
        enc.batch_from = 16


LONG = st.lists(
    st.sampled_from(PIECES + ["中文字", "我能吞下玻璃", "ภาษาไทย", "▁the", "ing", "\u0301", "x", "ab"]), max_size=80
).map("".join)


@pytest.mark.parametrize("name", NAMES)
@given(texts=st.lists(st.one_of(st.text(max_size=30), LONG), max_size=8))
@SETTINGS
def test_restarting_where_no_edge_crosses_changes_nothing(name: str, texts: list[str]) -> None:
    """The search cut where no lattice edge crosses, pieces searched apart (``exact``) == the
    whole-text search, unknown tokens collapsed across pieces, on vocabs whose sums are exact
    (the units path's condition 3)."""
    enc = encoder(name)
    assert enc.tables.units_ok
    for x in texts:
        data = x.encode("utf-8", "replace")
        offsets = list(range(len(data) + 1))
        whole, cut = enc._search(data, offsets, exact=False), enc._search(data, offsets, exact=True)
        assert whole is not None and cut is not None
        assert cut[0].tolist() == whole[0].tolist()
        assert cut[1].tolist() == whole[1].tolist()


@pytest.mark.parametrize("prepend", [False, True])
@pytest.mark.parametrize("merge", [False, True])
@given(
    texts=st.lists(
        st.lists(
            st.sampled_from(["a", "b", "ab", " ", "  ", "\t", "e\u0301", "x", "中文", "\xff", "é"]), max_size=30
        ).map(lambda p: "".join(p).encode("utf-8", "surrogateescape")),
        min_size=1,
        max_size=4,
    ),
    batch_from=st.sampled_from([0, 16]),
)
@settings(max_examples=60, deadline=None)
def test_ids_path_equals_spans_path_warm_and_cold(
    prepend: bool, merge: bool, texts: list[bytes], batch_from: int
) -> None:
    """``encode_fragment_ids`` (units as byte ranges, distinct ones in arrays) == the ids of
    ``encode_fragment``, whether the units are cached by an earlier text or not."""
    enc = flag_encoder(prepend, merge)
    enc.batch_from = batch_from
    try:
        enc.clear_cache()
        for data in texts:  # the cache fills as the texts go
            assert enc.encode_fragment_ids(data, after_special=False) == [p[0] for p in enc.encode_reference(data)]
            assert enc.encode_fragment_ids(data + b" " + data, after_special=False) == [
                p[0] for p in enc.encode_fragment(data + b" " + data, after_special=False)
            ]
    finally:
        enc.batch_from = 16


@pytest.mark.parametrize("name", NAMES)
@given(words=st.lists(WORD, min_size=1, max_size=12), repeats=st.integers(1, 40))
@SETTINGS
def test_ids_path_with_many_repeated_units(name: str, words: list[str], repeats: int) -> None:
    """Many units, few distinct (the array bookkeeping's case), cold then warm."""
    enc = encoder(name)
    data = " ".join(words[i % len(words)] for i in range(len(words) * repeats)).encode("utf-8", "surrogatepass")
    enc.clear_cache()
    expected = [p[0] for p in enc.encode_reference(data)]
    enc.clear_cache()
    assert enc.encode_fragment_ids(data, after_special=False) == expected
    assert enc.encode_fragment_ids(data, after_special=False) == expected


@given(words=st.lists(st.sampled_from(["x", "hi", "xhi", "hix", "yy", "h"]), min_size=1, max_size=20))
@settings(max_examples=60, deadline=None)
def test_unknown_tokens_collapse_across_units(words: list[str]) -> None:
    """Without a "▁" token each unit's space string is unknown, so unknown tokens meet across
    units (one unknown then, as llama.cpp merges them): ids path, spans path and reference agree."""
    from tui_tok.tokenizer.core.vocab import vocab_from_metadata
    from tui_tok.tokenizer.ugm.encoder import UgmEncoder

    vocab = vocab_from_metadata({"tokenizer.ggml.model": "t5",
                                 "tokenizer.ggml.tokens": ["<pad>", "</s>", "<unk>", "▁hi", "h", "i"],
                                 "tokenizer.ggml.scores": [0.0, 0.0, 0.0, -1.0, -3.0, -3.0],
                                 "tokenizer.ggml.token_type": [3, 3, 2, 1, 1, 1],
                                 "tokenizer.ggml.add_space_prefix": True,
                                 "tokenizer.ggml.remove_extra_whitespaces": True})  # fmt: skip
    enc = UgmEncoder(vocab)
    enc.batch_from = 0
    data = " ".join(words).encode()
    expected = [p[0] for p in enc.encode_reference(data)]
    assert enc.encode_fragment_ids(data, after_special=False) == expected
    assert [p[0] for p in enc.encode_fragment(data, after_special=False)] == expected
