"""The CJK unigram vocabularies of 8,000 pieces (``benchmarks/data``, made by
``tools/make_cjk_unigram.py``) against llama.cpp's ids recorded in
``tests/fixtures/cjk_unigram_ids.jsonl`` (``tools/record_cjk_ids.py``), through every UGM path,
and the whole-text ids path against llama.cpp's computation on generated CJK text."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from test_ugm_textids import fast_ids, whole_ids

from benchmarks.cjk_text import cjk_text
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.core.paths import AUTO
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.tokenizer.ugm.encoder import UgmEncoder

WHOLE_FROM = AUTO.ugm_whole_from

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "fixtures" / "cjk_unigram_ids.jsonl"
NAMES = ["ja-unigram-8000", "zh-unigram-8000"]
LANG = {"ja-unigram-8000": "ja", "zh-unigram-8000": "zh"}


@cache
def rows(name: str) -> list[dict]:
    with FIXTURE.open(encoding="utf-8") as f:
        return [r for r in map(json.loads, f) if r["vocab"] == name]


@cache
def tok(name: str) -> Tokenizer:
    return load_tokenizer(ROOT / "benchmarks" / "data" / f"{name}.gguf")


def encoder(name: str) -> UgmEncoder:
    enc = tok(name).encoder
    assert isinstance(enc, UgmEncoder)
    return enc


@pytest.mark.parametrize("name", NAMES)
def test_encode_and_tokenize_give_llama_cpps_ids(name: str) -> None:
    t = tok(name)
    assert len(rows(name)) >= 20 and any(len(r["text"].encode()) >= WHOLE_FROM for r in rows(name))
    bad = [
        r["text"][:40] for r in rows(name) if t.encode(r["text"], add_special=False, parse_special=False) != r["ids"]
    ]
    assert bad == []
    bad = [r["text"][:40] for r in rows(name) if [x.id for x in t.tokenize(r["text"], add_special=False)] != r["ids"]]
    assert bad == []


@pytest.mark.parametrize("name", NAMES)
def test_every_path_gives_llama_cpps_ids(name: str) -> None:
    """The whole-text ids path (forced for short texts too), llama.cpp's computation, and the
    faithful byte path, row by row."""
    enc = encoder(name)
    for r in rows(name):
        data = r["text"].encode()
        assert fast_ids(enc, data) == r["ids"], r["text"][:40]
        assert whole_ids(enc, data) == r["ids"], r["text"][:40]
        if len(data) < 4000:
            assert [p[0] for p in enc.encode_reference(data)] == r["ids"], r["text"][:40]


@cache
def lines(lang: str) -> list[str]:
    return cjk_text(lang, 40_000, seed=5).splitlines()


PIECES = [
    "ー",
    "ッ",
    "ｶ",
    "ﾞ",
    "Ａ",
    "１",
    "①",
    "　",
    " ",
    "  ",
    "\n",
    "、",
    "。",
    "…",
    "Python",
    "2026",
    "🦙",
    "é",
    "e\u0301",
]


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_whole_text_path_equals_llama_cpps_computation_on_cjk(name: str, data: st.DataObject) -> None:
    pool = lines(LANG[name])
    parts = data.draw(st.lists(st.one_of(st.sampled_from(pool), st.sampled_from(PIECES)), min_size=1, max_size=40))
    raw = "".join(parts).encode()
    enc = encoder(name)
    got = fast_ids(enc, raw)
    assert got is not None
    assert got == whole_ids(enc, raw)


@pytest.mark.parametrize(
    ("text", "dirty"),
    [
        ("かな漢字カナ、ー", []),  # every kana is guarded (U+3099 composes) and the next starts with 0xE3 too
        ("か\u3099な", [0]),  # the voiced mark does compose: "が"
        ("ハ\u309aン！", [0, 3]),  # "パ", and the full-width "!" (changed alone)
        ("は𠀋", []),  # a 4-byte next character
    ],
)
def test_only_characters_that_change_are_dirty(text: str, dirty: list[int]) -> None:
    """A guarded character is dirty only where the charsmap walk goes on through the whole next
    character, not where the next one merely shares its first byte (0xE3 for kana and the
    voiced marks alike): each dirty position costs a region normalised in Python."""
    from tui_tok.tokenizer.ugm.textids import _code_points

    enc = encoder("ja-unigram-8000")
    enc.prepare()
    text_ids = enc._text_ids
    assert enc._token_hash is not None
    alphabet = text_ids.alphabet(enc.tables, enc._token_hash, enc.vocab.unk_id)
    cps = _code_points(text)
    text_ids._walk_new(alphabet, np.unique(cps).astype(np.int64))
    kind = (alphabet.code[cps] & 3).astype(np.uint8)
    assert text_ids._dirty(cps, kind).tolist() == dirty


@pytest.mark.parametrize("name", NAMES)
def test_packed_pairs_equal_the_bigram_table(name: str) -> None:
    """Alphabets past the bool matrix (2,078 and 3,489 letters here) answer ``joined`` from a
    packed bit matrix: the same as the bigram hash table, boundary by boundary, for letters
    side by side in tokens, random pairs and the unknown letter 0."""
    enc = encoder(name)
    enc.prepare()
    assert enc._token_hash is not None
    alphabet = enc._text_ids.alphabet(enc.tables, enc._token_hash, enc.vocab.unk_id)
    assert alphabet.pairs is None and alphabet.pair_bits is not None
    rng = np.random.default_rng(7)
    tokens = "".join(enc.vocab.tokens[i] for i in range(3, 3000))
    from_tokens = (alphabet.code[[ord(c) for c in tokens]] >> 2).astype(np.int64)
    letters = np.concatenate((from_tokens, rng.integers(0, alphabet.size + 1, 200_000)))
    letters = letters.astype(alphabet.letter_type)
    want = enc._token_hash.joined(alphabet.chars[letters]) & (letters[:-1] != 0) & (letters[1:] != 0)
    got = alphabet.joined(letters, enc._token_hash)
    assert got.sum() > 1000
    assert np.array_equal(got, want)
