"""The batched merge loop (``batch/merge.py``, ``bpe/batch.py``) against the per-word merges.

The per-word paths are the ones the conformance rows check (rows are short, so they never reach
the batch); here both run over the same words and must agree exactly:
- on every BPE vocab, all distinct words of a long mixed text (every conformance text of every
  vocab, llama.cpp's .inp texts, long runs that take the heap, bytes that are no token);
- on random merge tables with Hypothesis, against a plain sequential loop written from the rule.
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import json
import textwrap
from functools import cache
from types import MethodType

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from support import vocab_files
from tui_tok.tokenizer.batch.merge import NO_PRIO, SymbolMerger
from tui_tok.tokenizer.bpe.encoder import BpeEncoder
from tui_tok.tokenizer.core.types import VocabType
from tui_tok.tokenizer.pretokenize.split import split_words

# --- on real vocabs -------------------------------------------------------------------------


@cache
def _mixed_text() -> str:
    """Every conformance and .inp text we have, plus cases aimed at the batch's edges."""
    texts: list[str] = []
    for vf in vocab_files():
        if vf.conformance is not None:
            for line in vf.conformance.read_text(encoding="utf-8").splitlines():
                texts.append(json.loads(line)["text"])
        if vf.inp is not None:
            texts += vf.inp.read_text(encoding="utf-8").split("__ggml_vocab_test__")
    for module in (textwrap, difflib, argparse):  # prose and code: thousands of distinct words
        texts.append(inspect.getsource(module)[:20_000])
    texts += [
        "a" * 300, "ab" * 200, " " * 257, "\n" * 140, "z" * 129, "x" * 128, "9" * 400,
        "Supercalifragilisticexpialidocious" * 5, "🦙" * 50, "ஸ்ரீ" * 40, "\u2581\u2581x\u2581 y" * 30,
    ]  # fmt: skip
    return "\n".join(dict.fromkeys(texts))


def _bpe_vocab_files():
    from tui_tok.loader import load_tokenizer

    out = []
    for vf in vocab_files():
        tok = load_tokenizer(vf.path)
        if tok.vocab.type == VocabType.BPE and tok.vocab.model in ("gpt2", "gemma4"):
            out.append(pytest.param(tok.vocab, id=vf.name))
    return out


@pytest.mark.parametrize("vocab", _bpe_vocab_files())
def test_batch_equals_per_word(vocab) -> None:
    """Every distinct word of the mixed text: batch result == per-word result."""
    per_word = BpeEncoder(vocab)
    batch = BpeEncoder(vocab)
    text = _mixed_text()
    words = split_words(text, per_word.spec.regexes)
    cut = None if per_word.spec.byte_encode else (batch.merge_ranks() and batch._subword_cut())
    if cut is not None:
        words = [part for word in words for part in cut.split(word)]
    words = [w for w in dict.fromkeys(words) if w]
    assert len(words) > 1000
    per_word.merge_ranks()
    expected = [per_word._bpe_word(w) for w in words]
    got = batch._batch_words(words)
    assert got == expected


@pytest.mark.parametrize("vocab", _bpe_vocab_files()[:3])
def test_encode_long_text_equals_short_pieces(vocab) -> None:
    """End to end: a long text's ids (batched) == the same text encoded by a fresh encoder with
    the batch switched off."""
    text = _mixed_text().encode("utf-8", "surrogatepass")
    fast = BpeEncoder(vocab).encode_fragment_ids(text)
    slow_encoder = BpeEncoder(vocab)
    slow_encoder._batch_words = lambda words: [slow_encoder._bpe_word(w) for w in words]  # type: ignore[method-assign]
    assert fast == slow_encoder.encode_fragment_ids(text)


# --- on random merge tables -----------------------------------------------------------------


def _reference(word: list[str], prio: dict[tuple[str, str], int]) -> list[str]:
    """The rule, literally: merge the best pair (lowest priority, then leftmost) until none."""
    syms = list(word)
    while True:
        found = [(prio[p], i) for i, p in enumerate(zip(syms, syms[1:])) if p in prio]
        if not found:
            return syms
        _, i = min(found)
        syms[i : i + 2] = [syms[i] + syms[i + 1]]


ALPHABET = "abcd"
pair_tables = st.dictionaries(
    st.tuples(st.text(ALPHABET, min_size=1, max_size=3), st.text(ALPHABET, min_size=1, max_size=3)),
    st.integers(0, 20),  # repeated priorities: ties go to the leftmost pair
    max_size=40,
)


def _merge(merger: SymbolMerger, words: list[list[int]]) -> list[list[int]]:
    lens = np.array([len(w) for w in words], dtype=np.int64)
    return merger.merge_flat(np.array([s for w in words for s in w], dtype=np.int64), lens) if words else []


def _merger(table: dict[tuple[str, str], int], tokens: list[str]) -> SymbolMerger:
    def resolve(lefts: list[str], rights: list[str]) -> tuple[np.ndarray, list[str]]:
        prios = [table.get(p, -1) for p in zip(lefts, rights)]
        return np.array(prios, dtype=np.int64), [a + b for a, b, r in zip(lefts, rights, prios) if r >= 0]

    return SymbolMerger(tokens, {t: i for i, t in enumerate(tokens)}, resolve)


@settings(max_examples=150, deadline=None)
@given(pair_tables, st.lists(st.text(ALPHABET, min_size=1, max_size=30), min_size=1, max_size=40))
def test_merger_equals_rule(table: dict[tuple[str, str], int], words: list[str]) -> None:
    """merge (numpy rounds + Python tail), merge_long (heap) and the rule agree; some symbols
    are no token (ids past the vocab) and that must not matter."""
    merger = _merger(table, ["a", "b", "ab", "abc", "dd"])
    expected = [_reference(list(w), table) for w in words]
    got = _merge(merger, [merger.char_symbols(w) for w in words])
    assert [[merger.text(s) for s in syms] for syms in got] == expected
    for w, exp in zip(words, expected):
        assert [merger.text(s) for s in merger.merge_long(merger.char_symbols(w))] == exp


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=()), max_size=12), max_size=6))
def test_char_symbol_array_equals_char_symbols(texts: list[str]) -> None:
    """The code-point table gives each character the symbol the dict path gives it, across calls
    (tokens, characters that are no token, astral characters, lone surrogates, NUL)."""
    merger = _merger({}, ["a", "b", "ab", "\U0001f600", "\x00"])
    for text in texts:
        assert merger.char_symbol_array(text).tolist() == merger.char_symbols(text)
        assert merger.char_symbol_array(text).dtype == np.int64


def test_no_prio_is_above_every_priority() -> None:
    merger = _merger({("a", "b"): NO_PRIO - 1}, ["a", "b"])
    assert [merger.text(s) for s in _merge(merger, [merger.char_symbols("ab")])[0]] == ["ab"]
    assert merger.merge_flat(np.array([0, 1], dtype=np.int64), np.array([1, 1])) == [[0], [1]]


# --- SPM --------------------------------------------------------------------------------------


def _spm_vocab_files():
    from tui_tok.loader import load_tokenizer

    out = []
    for vf in vocab_files():
        tok = load_tokenizer(vf.path)
        if tok.vocab.type == VocabType.SPM:
            out.append(pytest.param(tok.vocab, id=vf.name))
    return out


@pytest.mark.parametrize("vocab", _spm_vocab_files())
def test_spm_batch_equals_per_chunk(vocab) -> None:
    """Every distinct chunk of the mixed text: batched (ids, ends) == ``_encode_valid``'s, and a
    whole long text encodes the same with the batch as without."""
    from tui_tok.tokenizer.spm.encoder import SpmEncoder

    text = _mixed_text()
    batch = SpmEncoder(vocab)
    chunks = list(dict.fromkeys(batch._chunker.coarse(text)))
    assert len(chunks) > 1500
    batch._encode_batch(chunks)
    per_chunk = SpmEncoder(vocab)
    assert [batch._cache[c] for c in chunks] == [per_chunk._encode_valid(c) for c in chunks]

    data = text.encode("utf-8", "surrogatepass")
    slow = SpmEncoder(vocab)
    slow._encode_batch = lambda chunks: None  # type: ignore[method-assign]
    assert SpmEncoder(vocab).encode_fragment_ids(data, after_special=True) == slow.encode_fragment_ids(
        data, after_special=True
    )
    assert SpmEncoder(vocab).encode_fragment(data, after_special=True) == slow.encode_fragment(data, after_special=True)


# --- end to end through the Tokenizer --------------------------------------------------------


def _bpe_and_spm_files():
    from tui_tok.loader import load_tokenizer

    return [
        pytest.param(vf.path, id=vf.name)
        for vf in vocab_files()
        if load_tokenizer(vf.path).vocab.type in (VocabType.BPE, VocabType.SPM)
    ]


@pytest.mark.parametrize("path", _bpe_and_spm_files())
def test_long_text_ids_equal_unbatched(path) -> None:
    """A long mixed text (user-defined tokens cut it into many fragments for some vocabs, and
    some fragments repeat): ``encode`` and ``tokenize`` (spans included) with the batches and the
    many-fragment calls == one fragment at a time, per word."""
    from tui_tok.loader import load_tokenizer

    repeats = "<s>x y</s>x y<|endoftext|>x y\n\n\tx y<s>x y"  # a fragment repeated, after specials and not
    text = _mixed_text() + "<s></s><|endoftext|><start_of_turn>\n\n\t  <mask> [CLS]" + repeats * 3
    fast = load_tokenizer(path)
    slow = load_tokenizer(path)
    encoder = slow.encoder
    from tui_tok.tokenizer.core.encoder import Encoder

    # the base class's one-fragment-at-a-time defaults instead of the encoder's batched overrides
    encoder.encode_fragments_ids = MethodType(Encoder.encode_fragments_ids, encoder)  # type: ignore[method-assign]
    encoder.encode_fragments = MethodType(Encoder.encode_fragments, encoder)  # type: ignore[method-assign]
    if hasattr(encoder, "_batch_words"):
        encoder._batch_words = lambda words: [encoder._bpe_word(w) for w in words]  # type: ignore[attr-defined]
    if hasattr(encoder, "_encode_batch"):
        encoder._encode_batch = lambda chunks: None  # type: ignore[attr-defined]
    for parse_special in (False, True):
        expected = slow.encode(text, parse_special=parse_special)
        assert fast.encode(text, parse_special=parse_special) == expected
        tokens = fast.tokenize(text, parse_special=parse_special)
        assert [t.id for t in tokens] == expected
        assert tokens == slow.tokenize(text, parse_special=parse_special)  # spans and kinds too


# --- the hashed rank index --------------------------------------------------------------------


class _Colliding(str):
    """A string whose hash is its length: every merge of a length shares one hash."""

    def __hash__(self) -> int:
        return len(self)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.text("ab ", min_size=1, max_size=4), max_size=30),
    st.lists(st.text("ab ", min_size=1, max_size=4), max_size=30),
    st.booleans(),
)
def test_hashed_ranks_equal_first_index(merges: list[str], keys: list[str], collide: bool) -> None:
    """Rank = the first index of the key (llama.cpp's emplace), -1 if absent, also when many
    merges share a hash and when merges repeat."""
    from tui_tok.tokenizer.bpe.hashed_ranks import HashedRanks

    if collide:
        merges = [_Colliding(m) for m in merges]
        keys = [_Colliding(k) for k in keys]
    keys = keys + merges[:5]
    index = HashedRanks(merges)
    assert index.ranks(keys).tolist() == [merges.index(k) if k in merges else -1 for k in keys]


def _all_files():
    return [pytest.param(vf, id=vf.name) for vf in vocab_files() if vf.conformance is not None]


@pytest.mark.parametrize("vf", _all_files())
def test_prepare_changes_no_ids(vf) -> None:
    """``Tokenizer.prepare()`` only builds tables early: every conformance row still matches."""
    from support import conformance_rows
    from tui_tok.loader import load_tokenizer

    tok = load_tokenizer(vf.path)
    tok.prepare()
    for row in conformance_rows(vf.name):
        got = tok.encode(row["text"], add_special=row["add_special"], parse_special=row["parse_special"])
        assert got == row["ids"], row["text"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=6), max_size=12),
    st.dictionaries(
        st.integers(0, 9), st.lists(st.tuples(st.integers(-1, 50), st.integers(0, 4)), min_size=1, max_size=3)
    ),
    st.booleans(),
)
def test_expand_words_equals_per_word(words: list[list[int]], extra: dict, ends: bool) -> None:
    """``expand_words`` == concatenating each symbol's parts word by word (sizes or running ends),
    with symbols of one token and of several."""
    from itertools import accumulate

    from tui_tok.tokenizer.batch.results import expand_words

    def parts_of(sid: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        runs = extra.get(sid, [(sid + 100, sid % 3 + 1)])
        return tuple(r[0] for r in runs), tuple(r[1] for r in runs)

    expected = []
    for word in words:
        ids = tuple(i for s in word for i in parts_of(s)[0])
        sizes = tuple(n for s in word for n in parts_of(s)[1])
        expected.append((ids, tuple(accumulate(sizes)) if ends else sizes))
    assert expand_words(words, lambda sids: list(map(parts_of, sids)), ends=ends) == expected
