"""Text diff of two GGUF tokenizers, checked against each side's own tokenizer and the issue's rule.

The oracle: each side's tokens as (start, end, piece) straight from ``Tokenizer.tokenize`` and
``token_to_piece``, and the first difference found by a plain loop restating the rule.
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings, strategies as st

from support import ASSETS, HAVE_SHARED, SHARED, SHARED_MISSING, llama_test_cases, vocab_file
from tui_tok.explore.diff.align import align, render_rows
from tui_tok.explore.diff.text_diff import diff_texts
from tui_tok.loader import load_tokenizer

TEXTS = ["", "Hello world", " Hello World!", "日本語 🙂 naïve café", "\tx = 42  # tab\n\n  spaces",
         "1234567 3.14", "<|im_start|>user\nhi<|im_end|>", "[INST] hi [/INST]", "<s>a</s>", "don't I'll"]  # fmt: skip

BUNDLED_PAIRS = [("qwen3-vocab.gguf", "ggml-vocab-gpt-2.gguf"), ("qwen3-vocab.gguf", "qwen3-vocab.gguf"),
                 ("ggml-vocab-phi-3.gguf", "t5-botchan-en-unigram-1000.gguf")]  # fmt: skip
SHARED_PAIRS = [("vocabs/ggml-vocab-qwen2.gguf", "vocabs/ggml-vocab-qwen35.gguf"),
                ("data/qwen3-vocab.gguf", "vocabs/ggml-vocab-qwen2.gguf"),
                ("vocabs/ggml-vocab-llama-spm.gguf", "data/mistral-spm-v1.gguf"),
                ("data/mistral-spm-v3.gguf", "data/mistral-spm-v1.gguf"),
                ("vocabs/ggml-vocab-gpt-2.gguf", "vocabs/ggml-vocab-gpt-neox.gguf"),
                ("vocabs/ggml-vocab-llama-bpe.gguf", "vocabs/ggml-vocab-qwen2.gguf"),
                ("vocabs/ggml-vocab-deepseek-coder.gguf", "vocabs/ggml-vocab-deepseek-llm.gguf")]  # fmt: skip


@cache
def tok(path: str):  # type: ignore[no-untyped-def]
    return load_tokenizer(path)


def triples(t, data: bytes, add: bool, parse: bool) -> list[tuple[int, int, bytes]]:  # type: ignore[no-untyped-def]
    return [
        (x.start, x.end, t.token_to_piece(x.id, special=True))
        for x in t.tokenize(data, add_special=add, parse_special=parse)
    ]


def check(path_a: str, path_b: str, text: str, *, add: bool = True, parse: bool = False) -> None:
    ta, tb = tok(path_a), tok(path_b)
    data = text.encode()
    d = diff_texts(ta, tb, data, add_special=add, parse_special=parse)
    assert [x.id for x in d.a] == ta.encode(data, add_special=add, parse_special=parse)
    assert [x.id for x in d.b] == tb.encode(data, add_special=add, parse_special=parse)
    ka, kb = triples(ta, data, add, parse), triples(tb, data, add, parse)
    assert [(x.start, x.end, x.piece) for x in d.a] == ka
    assert [(x.start, x.end, x.piece) for x in d.b] == kb
    # the rule, restated
    index = next((i for i, (x, y) in enumerate(zip(ka, kb)) if x != y), None)
    if index is None and len(ka) != len(kb):
        index = min(len(ka), len(kb))
    assert d.same == (ka == kb) == (index is None)
    js = d.to_json()
    assert js["same"] == d.same and js["a"]["ids"] == [x.id for x in d.a]
    if index is not None:
        assert d.first is not None and d.first.index == index
        if index < min(len(ka), len(kb)):
            assert d.first.byte == min(ka[index][0], kb[index][0])
        else:
            assert d.first.byte == len(data)
        assert js["first_difference"]["byte"] == d.first.byte
        assert any(c.differs for c in align(d))
    else:
        assert js["first_difference"] is None and not any(c.differs for c in align(d))
    # every token sits in exactly one column, in order
    cols = align(d)
    assert [i for c in cols for i in c.a] == list(range(len(d.a)))
    assert [i for c in cols for i in c.b] == list(range(len(d.b)))


@pytest.mark.parametrize(("a", "b"), BUNDLED_PAIRS)
@pytest.mark.parametrize("add", [True, False])
def test_bundled_pairs(a: str, b: str, add: bool) -> None:
    for text in TEXTS + [t for t, _ in llama_test_cases("phi-3")][:40]:
        check(str(ASSETS / a), str(ASSETS / b), text, add=add, parse=add)


def test_same_vocab_is_same() -> None:
    path = str(ASSETS / "qwen3-vocab.gguf")
    for text in TEXTS:
        assert diff_texts(tok(path), tok(path), text).same


def test_different_families_differ_at_the_first_token() -> None:
    d = diff_texts(tok(str(ASSETS / "qwen3-vocab.gguf")), tok(str(ASSETS / "ggml-vocab-phi-3.gguf")), "Hello")
    # phi-3 adds BOS <s> (zero width at 0); Qwen3 starts with 'Hello'
    assert not d.same and d.first is not None and (d.first.index, d.first.byte) == (0, 0)
    assert d.first.b is not None and d.first.b.piece == b"<s>"
    assert "^" in render_rows(d)[2]


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
@pytest.mark.parametrize(("a", "b"), SHARED_PAIRS)
def test_shared_pairs(a: str, b: str) -> None:
    pa, pb = str(SHARED / a), str(SHARED / b)
    name = a.split("/")[-1].removesuffix(".gguf").removeprefix("ggml-vocab-")
    cases = [t for t, _ in llama_test_cases(name)] if vocab_file(name).inp else []
    for text in TEXTS + cases[:60]:
        check(pa, pb, text)
        check(pa, pb, text, add=False, parse=True)


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
def test_ids_may_differ_where_pieces_agree() -> None:
    """llama-spm and Mistral v1 number the same pieces differently: still the same tokenization."""
    d = diff_texts(
        tok(str(SHARED / "vocabs/ggml-vocab-llama-spm.gguf")),
        tok(str(SHARED / "data/mistral-spm-v1.gguf")),
        "Hello world",
    )
    assert d.same and [t.id for t in d.a] != [t.id for t in d.b]


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
def test_mistral_v3_control_tokens() -> None:
    """v3's [INST] is one CONTROL token; v1 spells it out (' [', 'INST', ']'): they part at the space before it."""
    d = diff_texts(tok(str(SHARED / "data/mistral-spm-v3.gguf")), tok(str(SHARED / "data/mistral-spm-v1.gguf")),
                   "hi [INST]", parse_special=True)  # fmt: skip
    assert d.first is not None and d.first.byte == 2 and d.first.b is not None and d.first.b.piece == b" ["
    assert b"[INST]" in [t.piece for t in d.a] and b"[INST]" not in [t.piece for t in d.b]


PAIR_PATHS = [(str(ASSETS / a), str(ASSETS / b)) for a, b in BUNDLED_PAIRS]
if HAVE_SHARED:
    PAIR_PATHS += [(str(SHARED / a), str(SHARED / b)) for a, b in SHARED_PAIRS[:5]]


@settings(max_examples=150, deadline=None)
@given(pair=st.sampled_from(PAIR_PATHS), text=st.text(st.characters(codec="utf-8"), max_size=40),
       add=st.booleans(), parse=st.booleans())  # fmt: skip
def test_random_text(pair: tuple[str, str], text: str, add: bool, parse: bool) -> None:
    check(*pair, text, add=add, parse=parse)
