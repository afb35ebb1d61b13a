"""``SymbolMerger.merge_rounds_array`` (whole-array rounds, chains of ties) == llama.cpp's heap loop.

A huge word (a run of spaces, letters, newlines) merges in numpy rounds instead of one heap step
per merge; that is only allowed where it makes the heap's choices exactly. Checked against
``merge_heap`` (itself checked against the rule in ``test_batch_merge.py``) on random merge
tables built for runs (tied priorities, so that chains happen as with llama-spm's ▁-runs, and
merges of a run that beat the pair that made them), on words of runs, and on real vocabs.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from support import vocab_files
from tui_tok.tokenizer.batch.merge import SymbolMerger
from tui_tok.tokenizer.core.paths import AUTO, NEVER
from tui_tok.tokenizer.core.types import VocabType
from tui_tok.tokenizer.tokenizer import Tokenizer

CHARS = "ab"
_RUNS = [c * k for c in CHARS for k in range(1, 9)]


@st.composite
def run_tables(draw: st.DrawFn) -> dict[tuple[str, str], int]:
    """Merges of runs: for each character a chain (c^i, c) -> c^(i+1) up to a random length,
    then random merges of two runs; few priorities (0-4), so that ties are common."""
    table: dict[tuple[str, str], int] = {}
    for c in CHARS:
        for i in range(1, draw(st.integers(1, 8))):
            table[(c * i, c)] = draw(st.integers(0, 4))
    extra = draw(
        st.dictionaries(st.tuples(st.sampled_from(_RUNS), st.sampled_from(_RUNS)), st.integers(0, 4), max_size=30)
    )
    return {**table, **extra}


run_words = st.lists(st.tuples(st.sampled_from(CHARS), st.integers(1, 200)), min_size=1, max_size=6)


def _merger(table: dict[tuple[str, str], int]) -> SymbolMerger:
    tokens = sorted({c * k for c in CHARS for k in range(1, 17)})

    def resolve(lefts: list[str], rights: list[str]) -> tuple[np.ndarray, list[str]]:
        prios = [table.get(p, -1) for p in zip(lefts, rights)]
        return np.array(prios, dtype=np.int64), [a + b for a, b, r in zip(lefts, rights, prios) if r >= 0]

    return SymbolMerger(tokens, {t: i for i, t in enumerate(tokens)}, resolve)


def _texts(merger: SymbolMerger, syms: list[int]) -> list[str]:
    return [merger.text(s) for s in syms]


@settings(max_examples=500, deadline=None)
@given(run_tables(), run_words, st.booleans())
def test_rounds_equal_heap_on_runs(
    table: dict[tuple[str, str], int], runs: list[tuple[str, int]], same_prio: bool
) -> None:
    if same_prio:  # every merge of a run as good as any other: llama-spm's ▁-runs (chains)
        table = dict.fromkeys(table, 0)
    merger = _merger(table)
    word = "".join(c * n for c, n in runs)
    expected = _texts(merger, merger.merge_heap(merger.char_symbols(word)))
    assert _texts(merger, merger.merge_rounds_array(merger.char_symbol_array(word)).tolist()) == expected
    assert "".join(expected) == word


def test_chain_of_ties_is_one_token_per_chain() -> None:
    """a-runs of every length up to 8 are tokens of one priority: chains of 8 from the left."""
    table = {("a" * i, "a"): 0 for i in range(1, 8)}
    merger = _merger(table)
    for n in (2, 7, 8, 9, 15, 16, 17, 1000, 1001, 1007):
        got = _texts(merger, merger.merge_rounds_array(merger.char_symbol_array("a" * n)).tolist())
        assert got == _texts(merger, merger.merge_heap(merger.char_symbols("a" * n)))
        assert got[: n // 8] == ["a" * 8] * (n // 8)


def _vocab_params():
    from tui_tok.loader import load_tokenizer

    wanted = ("qwen3-vocab", "gpt-2", "phi-3", "llama-spm", "gemma-4", "baichuan")
    out = []
    for vf in vocab_files():
        if vf.name in wanted:
            vocab = load_tokenizer(vf.path).vocab
            if vocab.type in (VocabType.BPE, VocabType.SPM):
                out.append(pytest.param(vocab, id=vf.name))
    return out


@pytest.fixture(scope="module", params=_vocab_params())
def encoder(request):  # type: ignore[no-untyped-def]
    return Tokenizer(request.param).encoder


def _real_merger(encoder) -> SymbolMerger:  # type: ignore[no-untyped-def]
    if hasattr(encoder, "_get_batch"):
        return encoder._get_batch()._merger
    merger = encoder._merger()
    assert merger is not None
    return merger


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", " ", "\n", "\u2581", "Ġ", "Ċ", "e", "0", "\t"]), st.integers(1, 700)),
                min_size=1, max_size=4))  # fmt: skip
def test_rounds_equal_heap_on_real_vocabs(encoder, runs: list[tuple[str, int]]) -> None:  # type: ignore[no-untyped-def]
    merger = _real_merger(encoder)
    word = "".join(c * n for c, n in runs)
    expected = merger.merge_heap(merger.char_symbols(word))
    assert merger.merge_rounds_array(merger.char_symbol_array(word)).tolist() == expected


HUGE_TEXTS = [
    "\n" * 3000 + "a" * 2000 + "é" * 1500 + "\u2581" * 1200,
    " " * 5000 + "\u2581" * 3000 + "x",
    "\U0001f600" * 3000,
    "ab" * 1500 + "\t" * 1100,
    "x" * 1023,
    "x" * 1024,
    "a" * 4097 + " " * 4097 + "\n" * 4097,
]


@pytest.mark.parametrize("text", HUGE_TEXTS, ids=lambda t: f"{t[:3]!r}x{len(t)}")
def test_huge_words_encode_as_without_rounds(encoder, text: str, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """End to end through the encoders: the ids (and, via ``tokenize``, the spans) of huge words
    with the rounds equal those of a tokenizer that never takes them (per-word heap)."""
    vocab = encoder.vocab if hasattr(encoder, "vocab") else encoder._vocab
    fast = Tokenizer(vocab)
    got_ids, got_tokens = fast.encode(text), fast.tokenize(text)
    slow = Tokenizer(vocab, paths=replace(AUTO, rounds_from=NEVER))
    assert got_ids == slow.encode(text)
    assert got_tokens == slow.tokenize(text)
