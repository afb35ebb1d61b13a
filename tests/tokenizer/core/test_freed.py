"""A dropped tokenizer is freed by reference counting alone, whatever it has built and cached.

A reference cycle anywhere in its tables leaves them (and tens of thousands of cached words) to
the cyclic collector, whose next full pass then lands in the middle of some later encode: a
benchmark that loaded gemma-4 five times saw the cold encode go from 180 ms to 290 ms.
"""

from __future__ import annotations

import gc
import random

import pytest

from support import VocabFile, vocab_files
from tui_tok.loader import load_tokenizer

VOCABS = list(vocab_files())


def _long_mixed_text() -> str:
    """~40 KB of many distinct words (English-like, code, CJK, accents), so every batch path runs."""
    rng = random.Random(7)
    alphabet = "abcdefghijklmnopqrstuvwxyzéüß中文字日本語😀 "
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14))) for _ in range(4000)]
    return " ".join(words) + "\n\tdef f(x):\n        return x  # 123456\n"


TEXT = _long_mixed_text()


def _use_and_drop(vf: VocabFile) -> None:
    """Load, encode (batch paths too), tokenize, detokenize, stream a little; drop it all."""
    tok = load_tokenizer(vf.path)
    ids = tok.encode(TEXT, add_special=True, parse_special=True)
    tok.tokenize(TEXT[:2000], add_special=False)
    tok.detokenize(ids[:500], remove_special=True)
    stream = tok.stream_decoder()
    for tid in ids[:50]:
        stream.push(tid)


@pytest.mark.parametrize("vf", VOCABS, ids=[v.name for v in VOCABS])
def test_a_used_tokenizer_leaves_no_cycle(vf: VocabFile) -> None:
    _use_and_drop(vf)  # first use imports modules lazily: their cycles are not the tokenizer's
    gc.collect()
    gc.disable()
    try:
        _use_and_drop(vf)
        assert gc.collect() == 0, "a reference cycle was left for the collector"
    finally:
        gc.enable()
