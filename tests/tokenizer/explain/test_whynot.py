""""Why not?" on a BPE, an SPM, a UGM, a WPM and an RWKV file (bundled assets)."""

from __future__ import annotations

import pytest
from support import ASSETS

from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.explain import explain, why_not


@pytest.fixture(scope="module")
def toks():  # type: ignore[no-untyped-def]
    names = {"bpe": "ggml-vocab-gpt-2.gguf", "spm": "ggml-vocab-phi-3.gguf", "ugm": "t5-botchan-en-unigram-1000.gguf",
             "wpm": "ggml-vocab-bert-bge.gguf", "rwkv": "rwkv-world-vocab.gguf"}  # fmt: skip
    return {k: load_tokenizer(ASSETS / v) for k, v in names.items()}


def _first(tok, text):  # type: ignore[no-untyped-def]
    e = explain(tok, text)
    return e, e.fragments[0].chunks[0]


def test_bpe_names_the_rank_that_won(toks) -> None:  # type: ignore[no-untyped-def]
    tok = toks["bpe"]
    e, chunk = _first(tok, "Hello")
    w = why_not(tok, e, chunk, split="Hel|lo")
    first = chunk.steps[0]
    assert (first.left, first.right) == ("l", "l")  # the cut at 3 falls inside the first merge
    assert any(f"rank {first.rank}" in r and "'l' + 'l'" in r for r in w.reasons), w
    assert "rank" in w.verdict
    assert why_not(tok, e, chunk, split="Hello").verdict == "the engine made this split"


def test_spm_names_the_score(toks) -> None:  # type: ignore[no-untyped-def]
    tok = toks["spm"]
    e, chunk = _first(tok, "Hello")
    w = why_not(tok, e, chunk, split="▁Hel|lo")
    step = next(s for s in chunk.steps if (s.left, s.right) == ("el", "lo"))
    assert any(f"score {step.score:g}" in r for r in w.reasons), w


def test_ugm_gives_the_score_difference(toks) -> None:  # type: ignore[no-untyped-def]
    tok = toks["ugm"]
    e, chunk = _first(tok, "Hello")
    best_pieces = [s.token for s in chunk.steps if s.kind == "piece"]
    assert why_not(tok, e, chunk, split="|".join(best_pieces)).verdict.startswith("this split is on a best path")
    second = next(s for s in chunk.steps if s.kind == "path" and s.rank == 2)
    w = why_not(tok, e, chunk, split="|".join(second.tokens))
    best = next(s.total for s in chunk.steps if s.kind == "path" and s.rank == 1)
    assert f"{best - second.total:.4f} lower" in w.verdict, (w, best, second.total)


def test_greedy_families_name_the_longer_match(toks) -> None:  # type: ignore[no-untyped-def]
    tok = toks["rwkv"]
    e, chunk = _first(tok, "Hello world")
    assert "longer token 'Hello'" in why_not(tok, e, chunk, split="Hel|lo").verdict
    tok = toks["wpm"]
    e, chunk = _first(tok, "unaffable")
    first = next(s for s in chunk.steps if s.kind == "match")
    w = why_not(tok, e, chunk, split="▁un|aff")
    assert first.token != "▁un" and repr(first.token) in w.verdict


def test_token_that_cannot_come_from_the_text(toks) -> None:  # type: ignore[no-untyped-def]
    tok = toks["bpe"]
    e, chunk = _first(tok, "Hello")
    assert "cannot come from" in why_not(tok, e, chunk, token="world").verdict
    assert "not a token" in why_not(tok, e, chunk, token="qzqzqzqz").verdict
