"""``Tokenizer.tokenize``'s ``Tokens`` (``core/tokens.py``) is its list of ``Token`` in every way a
reader can see: on llama.cpp's conformance corpus of every vocabulary, and on any text (Hypothesis),
through indexing, slicing, iteration, equality, pickling and threads; its columns are the ids, starts
and ends, read-only, and its spans keep the invariants of a tokenization (in order; tiling the input
for lossless families)."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from test_properties import TEXT, check_spans

from support import VocabFile, conformance_rows, vocab_files
from tui_tok.errors import TokenizeError
from tui_tok.samples import DEFAULT_SAMPLE
from tui_tok.tokenizer.core.tokens import BLOCK, Tokens
from tui_tok.tokenizer.core.types import Token, TokenKind

VOCABS = list(vocab_files())
CONFORMANCE = [v for v in VOCABS if v.conformance is not None]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def list_form(tok, text, add: bool, parse: bool) -> list[Token]:  # type: ignore[no-untyped-def]
    """What ``tokenize`` returned before ``Tokens``: one ``Token`` per row of the columns."""
    kinds = tok.token_kinds()
    ids, starts, ends = (a.tolist() for a in tok.tokenize_arrays(text, add_special=add, parse_special=parse))
    return [Token(i, s, e, kinds[i]) for i, s, e in zip(ids, starts, ends, strict=True)]


def same_as_list(tokens: Tokens, expected: list[Token]) -> None:
    """Every way of reading ``tokens`` gives ``expected``."""
    assert isinstance(tokens, Tokens)
    assert tokens == expected and expected == tokens and tokens == tuple(expected)
    assert len(tokens) == len(expected) and bool(tokens) == bool(expected)
    assert list(tokens) == expected and tokens.tolist() == expected
    assert [tokens[i] for i in range(len(tokens))] == expected
    assert [tokens[-i] for i in range(1, len(tokens) + 1)] == expected[::-1] == list(reversed(tokens))
    assert tokens.ids.tolist() == [t.id for t in expected]
    assert tokens.starts.tolist() == [t.start for t in expected]
    assert tokens.ends.tolist() == [t.end for t in expected]
    assert all(type(t) is Token and type(t.id) is int and type(t.start) is int for t in tokens)


@pytest.mark.parametrize("vf", CONFORMANCE, ids=[v.name for v in CONFORMANCE])
def test_tokens_equal_the_list_form_on_the_conformance_corpus(load_cached, vf: VocabFile) -> None:
    """Each row of llama.cpp's conformance file: the ids are llama.cpp's, every reading is the list's."""
    tok = load_cached(vf.path)
    for row in conformance_rows(vf.name):
        add, parse = row["add_special"], row["parse_special"]
        tokens = tok.tokenize(row["text"], add_special=add, parse_special=parse)
        assert tokens.ids.tolist() == row["ids"], (vf.name, row["text"][:40])
        same_as_list(tokens, list_form(tok, row["text"], add, parse))


@pytest.mark.parametrize("vf", VOCABS, ids=[v.name for v in VOCABS])
@SETTINGS
@given(text=TEXT, add=st.booleans(), parse=st.booleans(), cut=st.slices(48))
def test_tokens_behave_as_their_list(load_cached, vf: VocabFile, text: str, add: bool, parse: bool, cut: slice) -> None:
    tok = load_cached(vf.path)
    try:
        tokens = tok.tokenize(text, add_special=add, parse_special=parse)
    except TokenizeError:
        return  # llama.cpp throws too (test_properties.py checks encode fails alike)
    expected = list_form(tok, text, add, parse)
    same_as_list(tokens, expected)
    same_as_list(tokens[cut], expected[cut])  # a slice is a Tokens too, with its own columns
    assert pickle.loads(pickle.dumps(tokens)) == expected
    check_spans(tok, text.encode(), tokens)  # in order; tiling the input for lossless families
    starts, ends = tokens.starts, tokens.ends
    assert np.all(starts <= ends) and np.all(ends[:-1] <= starts[1:])
    for t in expected[:3]:
        assert t in tokens and tokens.index(t) == expected.index(t) and tokens.count(t) == expected.count(t)


def test_a_long_tokenization_across_iteration_blocks(load_cached) -> None:
    tok = load_cached(DEFAULT_SAMPLE)
    text = "The quick brown fox, 12345 é 日本語 🦙\n" * 500
    tokens = tok.tokenize(text)
    assert len(tokens) > 2 * BLOCK  # iteration really goes block by block
    same_as_list(tokens, list_form(tok, text, True, False))
    assert tokens[BLOCK - 1 : BLOCK + 2] == list(tokens)[BLOCK - 1 : BLOCK + 2]
    assert tokens.ids.tolist() == tok.encode(text)


def test_columns_are_read_only_views() -> None:
    ids = np.array([5, 6], dtype=np.int64)
    tokens = Tokens(ids, [0, 2], [2, 5], {5: TokenKind.NORMAL, 6: TokenKind.SPECIAL})
    for column in (tokens.ids, tokens.starts, tokens.ends, tokens[1:].ids):
        with pytest.raises(ValueError, match="read-only"):
            column[0] = 1
    ids[0] = 7  # the caller's array keeps its flags (the columns are a view of it: not copied)
    assert tokens.ids[0] == 7
    assert tokens[1] == Token(6, 2, 5, TokenKind.SPECIAL)


def test_bad_columns_and_indices_are_refused() -> None:
    kinds = [TokenKind.NORMAL] * 3
    with pytest.raises(ValueError, match="differ in length"):
        Tokens([1, 2], [0], [1, 2], kinds)
    with pytest.raises(TypeError, match="integers"):
        Tokens([1.5], [0], [1], kinds)
    tokens = Tokens([1, 2], [0, 1], [1, 2], kinds)
    with pytest.raises(IndexError):
        tokens[2]
    with pytest.raises(TypeError):
        tokens[1.0]  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        hash(tokens)  # equal to a list, so unhashable like one


def test_equality_needs_the_same_kinds() -> None:
    """Two tokenizations are equal when their tokens are, kinds included, whatever table holds them."""
    a = Tokens([1, 2], [0, 1], [1, 2], [TokenKind.NORMAL, TokenKind.NORMAL, TokenKind.SPECIAL])
    b = Tokens([1, 2], [0, 1], [1, 2], {1: TokenKind.NORMAL, 2: TokenKind.SPECIAL})
    c = Tokens([1, 2], [0, 1], [1, 2], {1: TokenKind.NORMAL, 2: TokenKind.BYTE})
    assert a == b and a != c and a != a[:1] and a != [tuple(a)[0]]
    assert a != "ab" and a != [1, 2]
    assert Tokens.from_tokens(a) == a and Tokens.from_tokens([]) == []
    with pytest.raises(ValueError, match="two kinds"):
        Tokens.from_tokens([Token(1, 0, 1, TokenKind.NORMAL), Token(1, 1, 2, TokenKind.BYTE)])


def test_repr_reads_as_the_list_and_stays_short() -> None:
    kinds = [TokenKind.NORMAL] * 10
    two = Tokens([1, 2], [0, 1], [1, 2], kinds)
    assert repr(two) == f"Tokens({list(two)!r})"
    many = Tokens(list(range(10)), range(10), range(1, 11), kinds)
    text = repr(many)
    assert text.startswith("Tokens([Token(id=0, start=0, end=1,") and text.endswith("], len=10)")
    assert ", ..., Token(id=7, start=7, end=8," in text and "id=5" not in text


def test_a_pickle_holds_the_kinds_of_its_ids_only(load_cached) -> None:
    """Qwen3 has 151,669 kinds: a tokenization of a short text pickles a few, not the whole table."""
    tok = load_cached(DEFAULT_SAMPLE)
    tokens = tok.tokenize("<|im_start|>user\nHi<|im_end|>", parse_special=True)
    blob = pickle.dumps(tokens)
    assert len(blob) < 2_000
    back = pickle.loads(blob)
    assert isinstance(back, Tokens) and back == tokens and back[0].kind is TokenKind.SPECIAL and back[1:] == tokens[1:]


def test_one_tokens_read_by_many_threads(load_cached) -> None:
    tok = load_cached(DEFAULT_SAMPLE)
    tokens = tok.tokenize("Hello world, a few words to share between threads. " * 300)
    expected = tokens.tolist()
    results: list[object] = [None] * 8
    barrier = threading.Barrier(8)

    def work(i: int) -> None:
        barrier.wait()
        results[i] = list(tokens) if i % 2 else [tokens[k] for k in range(len(tokens))]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == expected for r in results)
