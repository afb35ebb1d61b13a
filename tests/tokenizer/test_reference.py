"""Each family's ``<family>/reference.py`` (llama.cpp's algorithm written once, plainly) against
llama.cpp's own output and against the fast encoders.

* conformance: the reference's ids equal llama.cpp's rows and ``.inp``/``.out`` vectors on every
  vocab (bundled assets: one per family; ../shared when present);
* equivalence: on random texts, short and long (several thousand characters, so the fast
  encoders' big-input paths run: batches, list scans, whole-array rounds), the fast encoder's
  ``encode``, ``tokenize`` and ``tokenize_arrays`` equal the reference's pieces.
"""

from __future__ import annotations

import importlib
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from support import (
    ASSETS,
    HAVE_SHARED,
    SHARED,
    SHARED_MISSING,
    VocabFile,
    conformance_rows,
    llama_test_cases,
    vocab_files,
)
from tui_tok.tokenizer.core.types import VocabType
from tui_tok.tokenizer.tokenizer import Tokenizer

REFERENCES = {
    VocabType.BPE: "tui_tok.tokenizer.bpe.reference",
    VocabType.SPM: "tui_tok.tokenizer.spm.reference",
    VocabType.UGM: "tui_tok.tokenizer.ugm.reference",
    VocabType.WPM: "tui_tok.tokenizer.wpm.reference",
    VocabType.RWKV: "tui_tok.tokenizer.rwkv.reference",
    VocabType.PLAMO2: "tui_tok.tokenizer.plamo2.reference",
    VocabType.TEST: "tui_tok.tokenizer.test.reference",
}
"""Family -> module defining ``ReferenceEncoder``."""

BUNDLED = {
    VocabType.BPE: "qwen3-vocab.gguf",
    VocabType.SPM: "ggml-vocab-phi-3.gguf",
    VocabType.UGM: "t5-botchan-en-unigram-1000.gguf",
    VocabType.WPM: "ggml-vocab-bert-bge.gguf",
    VocabType.RWKV: "rwkv-world-vocab.gguf",
}
"""One bundled vocab per family: the equivalence tests run on it whatever ../shared holds (PLaMo2
has no real vocabulary: ``test_plamo2_fast_equals_reference`` uses the fixture's; TEST's encoder
is its reference: ``test_test_family_encoder_is_its_reference``)."""


def reference_tokenizer(tok: Tokenizer) -> Tokenizer:
    """A Tokenizer of the same vocab whose fragment encoder is the family's ``ReferenceEncoder``
    (the partition, BOS/EOS and spans around it are the Tokenizer's own)."""
    ref = Tokenizer(tok.vocab, paths="reference")
    module = importlib.import_module(REFERENCES[tok.vocab.type])
    encoder = ref.encoder
    inner = getattr(encoder, "inner", encoder)  # core/encoder.Wrapped
    assert isinstance(encoder, module.ReferenceEncoder) or isinstance(inner, module.ReferenceEncoder), encoder
    return ref


_CASES = [v for v in vocab_files() if v.conformance is not None or v.inp is not None]


@pytest.fixture(scope="module")
def pair(load_cached):  # type: ignore[no-untyped-def]
    """``pair(path)`` -> (fast tokenizer, reference tokenizer), or a skip for a family without a reference."""
    cache: dict = {}

    def get(path):  # type: ignore[no-untyped-def]
        if path not in cache:
            tok = load_cached(path)
            if tok.vocab.type not in REFERENCES:
                pytest.skip(f"family {tok.vocab.type.value} has no reference module")
            cache[path] = (tok, reference_tokenizer(tok))
        return cache[path]

    return get


@pytest.mark.parametrize("vf", _CASES, ids=[v.name for v in _CASES])
def test_reference_matches_llama_cpp(pair, vf: VocabFile) -> None:  # type: ignore[no-untyped-def]
    _, ref = pair(vf.path)
    problems = []
    for row in conformance_rows(vf.name):
        ids = ref.encode(row["text"], add_special=row["add_special"], parse_special=row["parse_special"])
        if ids != row["ids"]:
            problems.append(
                f"{row['text']!r} add={row['add_special']} parse={row['parse_special']}: {ids} != {row['ids']}"
            )
    for text, expected in llama_test_cases(vf.name):
        ids = ref.encode(text, add_special=False, parse_special=False)
        if ids != expected:
            problems.append(f".inp/.out {text!r}: {ids} != {expected}")
    assert not problems, f"{vf.name}: {len(problems)} mismatches:\n" + "\n".join(problems[:10])


def test_every_family_with_a_reference_has_a_bundled_vocab() -> None:
    assert set(BUNDLED) | {VocabType.PLAMO2, VocabType.TEST} == set(REFERENCES)
    assert all((ASSETS / name).is_file() for name in BUNDLED.values())


ALPHABET = [" ", "  ", "\n", "\n\n", "\t", "a", "b", "e", "the", "Z", "1", "42", "'s", "é", "中", "日本", "🦙", "\u2581",
            "<s>", "<|im_end|>", "\u00a0", "\u3000", "ab", "ing", ".", "!", "\r\n", "\xff"]  # fmt: skip
SHORT = st.one_of(st.text(max_size=40), st.lists(st.sampled_from(ALPHABET), max_size=30).map("".join))
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzéAB中日本", min_size=2, max_size=9)
LONG = st.lists(st.one_of(st.sampled_from(ALPHABET), WORD), min_size=800, max_size=2000).map("".join)
"""Several thousand characters with hundreds of distinct words: the fast encoders batch them."""
SETTINGS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


def _same(tok: Tokenizer, ref: Tokenizer, text: str | bytes, parse_special: bool) -> None:
    expected = ref.tokenize(text, add_special=True, parse_special=parse_special)
    # encode first: its ids-only paths take a text whose words no cache holds yet (UGM's whole-text path)
    assert tok.encode(text, add_special=True, parse_special=parse_special) == [t.id for t in expected]
    assert tok.tokenize(text, add_special=True, parse_special=parse_special) == expected
    ids, starts, ends = tok.tokenize_arrays(text, add_special=True, parse_special=parse_special)
    assert ids.tolist() == [t.id for t in expected]
    assert np.array_equal(starts, [t.start for t in expected]) and np.array_equal(ends, [t.end for t in expected])


@pytest.mark.parametrize("family", list(BUNDLED), ids=[f.value for f in BUNDLED])
@SETTINGS
@given(text=SHORT, parse_special=st.booleans(), raw=st.booleans())
def test_fast_equals_reference_short(pair, family: VocabType, text: str, parse_special: bool, raw: bool) -> None:  # type: ignore[no-untyped-def]
    tok, ref = pair(ASSETS / BUNDLED[family])
    _same(tok, ref, text.encode("utf-8", "surrogatepass")[1:] if raw else text, parse_special)  # raw: maybe bad UTF-8


@pytest.mark.parametrize("family", list(BUNDLED), ids=[f.value for f in BUNDLED])
@settings(SETTINGS, max_examples=4)
@given(text=LONG)
def test_fast_equals_reference_long(pair, family: VocabType, text: str) -> None:  # type: ignore[no-untyped-def]
    tok, ref = pair(ASSETS / BUNDLED[family])
    _same(tok, ref, text, False)


@pytest.mark.parametrize("family", list(BUNDLED), ids=[f.value for f in BUNDLED])
def test_fast_equals_reference_huge_runs(pair, family: VocabType) -> None:  # type: ignore[no-untyped-def]
    """Runs longer than the batch merger's whole-array threshold (``ROUNDS_FROM``), and a text
    past UGM's whole-text threshold (``whole_from``)."""
    tok, ref = pair(ASSETS / BUNDLED[family])
    rng = random.Random(29)
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyzé中") for _ in range(rng.randint(1, 8))) for _ in range(3000)
    ]
    prose = " ".join(
        rng.choice(words) + rng.choice(["", "", ",", ".\n"]) for _ in range(4000)
    )  # ~20 KB: whole-text paths
    for text in (" " * 3000, "\n" * 2100 + "x", "ab" * 1500, "a" * 1100 + " " + "日本" * 600, prose):
        _same(tok, ref, text, False)


def _plamo2_pair() -> tuple[Tokenizer, Tokenizer]:
    """PLaMo2 has no real vocabulary here: the fixture vocab built from llama.cpp's rules."""
    from fixtures.plamo2_vocab import plamo2_metadata
    from fixtures.simple_vocab import vocab_from_plain

    tok = Tokenizer(vocab_from_plain(plamo2_metadata()))
    return tok, reference_tokenizer(tok)


_PLAMO2: list[tuple[Tokenizer, Tokenizer]] = []


@SETTINGS
@given(text=st.one_of(SHORT, LONG), raw=st.booleans())
def test_plamo2_fast_equals_reference(text: str, raw: bool) -> None:
    if not _PLAMO2:
        _PLAMO2.append(_plamo2_pair())
    tok, ref = _PLAMO2[0]
    _same(tok, ref, text.encode("utf-8", "surrogatepass")[1:] if raw else text, False)


def test_test_family_encoder_is_its_reference() -> None:
    """TEST has no fast path: its encoder is its reference in every paths mode, llama.cpp's rolling
    hash of 5-byte chunks (llama-vocab.cpp:3617-3650), and ``on_chunk`` reports each chunk."""
    from tui_tok.tokenizer.core.paths import MODES
    from tui_tok.tokenizer.test.reference import ReferenceEncoder

    meta = {"tokenizer.ggml.model": "test", "tokenizer.ggml.tokens": [f"t{i}" for i in range(97)]}
    assert all(type(Tokenizer.from_metadata(meta, paths=mode).encoder) is ReferenceEncoder for mode in MODES)
    ref = reference_tokenizer(Tokenizer.from_metadata(meta))
    data = "hello world, naïve 🦙".encode()
    hashes = []
    for at in range(0, len(data), 5):
        h = 0
        for byte in data[at : at + 5]:
            h = (h * 31 + byte) % 2**64
        hashes.append(h)
    assert ref.encode(data) == [h % 97 for h in hashes]
    seen: list[tuple[int, int, int, int]] = []
    ReferenceEncoder(ref.vocab).encode_fragment(data, after_special=True, on_chunk=lambda *c: seen.append(c))
    assert seen == [(t.id, t.start, t.end, h) for t, h in zip(ref.tokenize(data), hashes)]


def test_spm_byte_fallback_of_byte_zero_looks_up_the_empty_text() -> None:
    """llama.cpp's ``byte_to_token`` falls back to the byte as a C string: byte 0 is "", which no
    token is, so it throws (V:4012-4014) even when a "\\x00" token exists. Reachable with input
    that is not valid UTF-8 (a lead byte swallows the NUL into a symbol that is no token)."""
    from tui_tok.errors import TokenizeError
    from tui_tok.tokenizer.core.vocab import vocab_from_metadata

    tokens = ["<unk>", "<s>", "</s>", "\x00", *(f"<0x{b:02X}>" for b in range(1, 256))]
    tok = Tokenizer(vocab_from_metadata({"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": tokens}))
    byte = [tokens.index(f"<0x{b:02X}>") for b in "\u2581".encode()]
    assert tok.encode(b"\x00", add_special=False) == [*byte, 3]  # the prefix ▁'s bytes, then the token
    for t in (tok, reference_tokenizer(tok)):
        with pytest.raises(TokenizeError, match="0x00"):
            t.encode(b"\xc3\x00", add_special=False)


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
def test_the_shared_corpus_is_covered() -> None:
    """With ../shared, every vocab of its conformance corpus is one of the cases above (without it,
    the bundled vocabs, one per family, still are)."""
    shared = {p.name.removesuffix(".jsonl") for p in (SHARED / "conformance").glob("*.jsonl")}
    assert shared <= {v.name for v in _CASES}
