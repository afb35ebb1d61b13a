"""Hypothesis: on random text (and random bytes), for each family, the explanation's ids equal
``encode`` and its fragments and chunks tile the input; the steps are the family reference's
own trace (``explain_checks.check_trace``); BPE steps are real merges."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from explain_checks import check
from support import ASSETS
from tui_tok.errors import TokenizeError
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.explain import explain
from tui_tok.tokenizer.tokenizer import Tokenizer

_FILES = {
    "bpe": "ggml-vocab-gpt-2.gguf",
    "bpe-qwen3": "qwen3-vocab.gguf",
    "spm": "ggml-vocab-phi-3.gguf",
    "ugm": "t5-botchan-en-unigram-1000.gguf",
    "wpm": "ggml-vocab-bert-bge.gguf",
    "rwkv": "rwkv-world-vocab.gguf",
    "plamo2": "",  # no asset: the fixture vocab (fixtures/plamo2_vocab.py)
    "test": "",  # llama.cpp's TEST type: any tokens
}
_TOKS: dict[str, object] = {}

_PIECES = st.sampled_from(["Hello", " world", "  ", "\n", "\t", "'s", "123", "é", "naïve", "日本語", "😀", "<s>", "</s>",
                           "<|endoftext|>", "<|im_start|>", "[CLS]", "▁", ",", ".", "ab", "ı", "ß", "\u200b", "x"])  # fmt: skip
TEXTS = st.one_of(st.lists(_PIECES, max_size=12).map("".join), st.text(max_size=40))


def _tok(name: str):  # type: ignore[no-untyped-def]
    if name not in _TOKS:
        if name == "plamo2":
            from fixtures.plamo2_vocab import plamo2_metadata
            from fixtures.simple_vocab import vocab_from_plain

            _TOKS[name] = Tokenizer(vocab_from_plain(plamo2_metadata()))
        elif name == "test":
            tokens = ["<s>", "</s>", *(f"t{i}" for i in range(95))]
            _TOKS[name] = Tokenizer.from_metadata({"tokenizer.ggml.model": "test", "tokenizer.ggml.tokens": tokens,
                                                   "tokenizer.ggml.token_type": [3, 3] + [1] * 95})  # fmt: skip
        else:
            _TOKS[name] = load_tokenizer(ASSETS / _FILES[name])
    return _TOKS[name]


@pytest.mark.parametrize("family", sorted(_FILES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS, parse_special=st.booleans())
def test_random_text(family: str, text: str, parse_special: bool) -> None:
    tok = _tok(family)
    check(tok, explain(tok, text, parse_special=parse_special), text, parse_special)


@pytest.mark.parametrize("family", sorted(_FILES))
@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=24))
def test_random_bytes(family: str, data: bytes) -> None:
    tok = _tok(family)
    try:
        tok.encode(data, add_special=False)
    except TokenizeError:  # e.g. WPM on bytes decoding above U+10FFFF: llama.cpp throws too
        with pytest.raises(TokenizeError):
            explain(tok, data, parse_special=False)
        return
    check(tok, explain(tok, data, parse_special=False), data, False)
