"""A GGUF against its Hugging Face tokenizer.json (the four ../shared/data/hf folders), the fuzzer and the shrinker.

Needs the optional ``tokenizers`` package (``pip install 'tui-tok[hf]'``; in the ``test`` extra).
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings, strategies as st

from support import HAVE_SHARED, SHARED, SHARED_MISSING
from tui_tok.explore.diff.fuzz import fuzz_texts
from tui_tok.explore.diff.shrink import shrink

HF = {"qwen3": "data/qwen3-vocab.gguf", "llama3": "vocabs/ggml-vocab-llama-bpe.gguf",
      "gemma3": "data/gemma3-270m-vocab.gguf", "mistral-v1": "data/mistral-spm-v1.gguf"}  # fmt: skip
ORDINARY = ["Hello world", "The quick brown fox jumps over the lazy dog.", "def f(x):\n    return x ** 2\n",
            "日本語のテキスト", "naïve café, 3.14 and 1234567", "Hello, y'all! How are you?", "  two  spaces\ttab\n\nend"]  # fmt: skip

needs_hf = pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)


@cache
def pair(name: str, add_special: bool = True):  # type: ignore[no-untyped-def]
    pytest.importorskip("tokenizers", reason="tokenizers not installed (pip install 'tui-tok[hf]')")
    from tui_tok.explore.diff.compare import HfPair
    from tui_tok.explore.diff.hf import load_hf
    from tui_tok.loader import load_tokenizer

    return HfPair(load_tokenizer(SHARED / HF[name]), load_hf(SHARED / "data/hf" / name), add_special=add_special)


def assert_one_minimal(p, text: str) -> None:  # type: ignore[no-untyped-def]
    assert p.differs(text)
    for i in range(len(text)):
        assert not p.differs(text[:i] + text[i + 1 :]), (text, i)


@needs_hf
@pytest.mark.parametrize(
    ("name", "add"), [("qwen3", True), ("qwen3", False), ("llama3", False), ("mistral-v1", True), ("gemma3", True)]
)
def test_ordinary_text_agrees(name: str, add: bool) -> None:
    p = pair(name, add)
    for text in ORDINARY:
        d = p.diff(text)
        assert d.same, (name, text, d.first)
        assert [t.id for t in d.b] == p.hf.encode(text, add_special=add)


@needs_hf
def test_llama3_bos_is_named() -> None:
    """This tokenizer.json's post-processor adds no <|begin_of_text|>; the GGUF does."""
    from tui_tok.explore.diff.compare import minimal_mismatch

    m = minimal_mismatch(pair("llama3"), "Hello world")
    assert m.minimal == "" and m.known is not None and m.known.name == "bos/eos"
    assert "<|begin_of_text|>" in m.known.detail


@needs_hf
def test_qwen3_nfc_is_named() -> None:
    from tui_tok.explore.diff.compare import minimal_mismatch

    p = pair("qwen3")
    m = minimal_mismatch(p, "A cafe\u0301 in the text")
    assert m.minimal == "e\u0301"  # NFC composes it into é; llama.cpp keeps the two code points
    assert m.known is not None and m.known.name == "normalizer" and "NFC" in m.known.detail
    assert_one_minimal(p, m.minimal)
    assert m.diff.first is not None and m.diff.first.byte == 0


@needs_hf
def test_gemma3_whitespace_tokens_are_named() -> None:
    from tui_tok.explore.diff.compare import minimal_mismatch

    p = pair("gemma3")
    m = minimal_mismatch(p, "x = 1\n\u2581\u2581return x")
    assert m.minimal == "\u2581\u2581"
    assert m.known is not None and m.known.name == "token text"
    assert "138" in m.known.detail and "whitespace" in m.known.detail
    assert_one_minimal(p, m.minimal)


@needs_hf
@pytest.mark.parametrize("name", ["qwen3", "gemma3", "mistral-v1"])
def test_fuzz_mismatches_are_minimal_and_named(name: str) -> None:
    from tui_tok.explore.diff.compare import fuzz

    p = pair(name)
    report = fuzz(p, 150, seed=0)
    assert report.tested == 150
    for m in report.mismatches:
        assert_one_minimal(p, m.minimal)
        assert m.known is not None, m.minimal
    if name == "mistral-v1":
        assert report.failing == 0
    else:
        assert report.failing > 0  # qwen3: NFC and '</s>'; gemma3: '▁▁'
    assert [m.minimal for m in fuzz(p, 150, seed=0).mismatches] == [m.minimal for m in report.mismatches]


def test_missing_tokenizers_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from tui_tok.errors import TuiTokError
    from tui_tok.explore.diff.hf import load_hf

    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(TuiTokError, match=r"pip install 'tui-tok\[hf\]' \(in a clone: pip install -e '\.\[hf\]'\)"):
        load_hf("whatever")


def test_fuzz_texts_are_deterministic() -> None:
    kw = {"vocab": ["hello", "world", "▁x"], "added": ["<s>", "</s>"], "stored": ["▁▁", "Ġa"]}
    assert fuzz_texts(200, seed=7, **kw) == fuzz_texts(200, seed=7, **kw)  # type: ignore[arg-type]
    assert fuzz_texts(200, seed=7, **kw) != fuzz_texts(200, seed=8, **kw)  # type: ignore[arg-type]
    assert len(set(fuzz_texts(200, seed=7, **kw))) > 150  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="abcxyz ", max_size=30), need=st.text(alphabet="abcxyz ", min_size=1, max_size=3))
def test_shrink_is_one_minimal(text: str, need: str) -> None:
    """The predicate: every character of ``need`` still present (as a multiset)."""
    from collections import Counter

    def fails(s: str) -> bool:
        return not (Counter(need) - Counter(s))

    if not fails(text):
        return
    small = shrink(text, fails)
    assert fails(small)
    assert all(not fails(small[:i] + small[i + 1 :]) for i in range(len(small)))
    assert sorted(small) == sorted(need)
