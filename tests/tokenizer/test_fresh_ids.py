"""Encoders marked ``FRESH_IDS`` hand ``encode`` a new list on every call, so ``encode`` may give
it to the caller without a copy: a caller changing its result must never change a later one."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings, strategies as st

from support import vocab_files
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.tokenizer import Tokenizer

CORPUS = "The quick brown fox, naïve café 日本語 🙂\n\tdef f(x):  return x ** 2  # ok\n" * 400  # ~30 KB: long paths


def _fresh_vocabs() -> list[str]:
    out = []
    for f in vocab_files():
        tok = load_tokenizer(f.path)
        if getattr(tok.encoder, "FRESH_IDS", False):
            out.append(f.name)
    return out


FRESH = _fresh_vocabs()


@cache
def tokenizer(name: str) -> Tokenizer:
    return load_tokenizer(next(f.path for f in vocab_files() if f.name == name))


def test_each_family_that_can_is_marked() -> None:
    """The bundled WPM, UGM and RWKV assets take the no-copy path (the test below covers them)."""
    assert {"bert-bge", "t5-botchan-en-unigram-1000", "rwkv-world-vocab"} <= set(FRESH)


def _check_owned(tok: Tokenizer, text: str) -> None:
    want = [t.id for t in tok.tokenize(text, add_special=False)]
    first = tok.encode(text, add_special=False)
    assert first == want
    first.append(-7)  # the caller owns its list
    first[:1] = [123456]
    second = tok.encode(text, add_special=False)
    assert second == want and second is not first


@pytest.mark.parametrize("name", FRESH)
@pytest.mark.parametrize("size", [5, 300, len(CORPUS)])
def test_a_changed_result_never_changes_the_next(name: str, size: int) -> None:
    tok = tokenizer(name)
    text = CORPUS[:size]
    for _ in range(2):  # cold, then with every cache warm
        _check_owned(tok, text)


@pytest.mark.parametrize("name", FRESH)
@settings(max_examples=30, deadline=None)
@given(text=st.text(st.sampled_from("ab é日 \n\t🙂x."), max_size=40))
def test_short_texts_too(name: str, text: str) -> None:
    tok = tokenizer(name)
    _check_owned(tok, text)
    _check_owned(tok, text)  # now from the encoder's caches
