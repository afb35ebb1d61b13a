"""Each token of ``tokenize`` carries the kind the explorer colours it by: normal, special, byte
fallback, unknown or user-defined. Checked on the bundled assets (no ../shared needed)."""

from __future__ import annotations

import dataclasses
from functools import cache

from support import ASSETS
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.core.types import TokenKind
from tui_tok.tokenizer.tokenizer import Tokenizer

NORMAL, SPECIAL, BYTE, UNKNOWN, USER = (
    TokenKind.NORMAL, TokenKind.SPECIAL, TokenKind.BYTE, TokenKind.UNKNOWN, TokenKind.USER_DEFINED
)  # fmt: skip


@cache
def _tok(name: str) -> Tokenizer:
    return load_tokenizer(ASSETS / name)


def _kinds(name: str, text: str, **flags: bool) -> list[tuple[bytes, TokenKind]]:
    tok = _tok(name)
    data = text.encode()
    tokens = tok.tokenize(text, **flags)
    assert [t.kind for t in tokens] == [tok.token_kind(t.id) for t in tokens]
    return [(data[t.start : t.end], t.kind) for t in tokens]


def test_bos_is_special_with_an_empty_span_and_bytes_fall_back() -> None:
    kinds = _kinds("ggml-vocab-phi-3.gguf", "hi 🦙", add_special=True)
    assert kinds[0] == (b"", SPECIAL)
    assert kinds[1][1] is NORMAL
    assert kinds[-4:] == [(bytes([b]), BYTE) for b in "🦙".encode()]


def test_user_defined_tokens_match_without_parse_special_and_control_tokens_only_with_it() -> None:
    qwen = "qwen3-vocab.gguf"
    assert _kinds(qwen, "<think>ok", add_special=False) == [(b"<think>", USER), (b"ok", NORMAL)]
    assert _kinds(qwen, "<|im_start|>ok", add_special=False, parse_special=True)[0] == (b"<|im_start|>", SPECIAL)
    plain = _kinds(qwen, "<|im_start|>ok", add_special=False, parse_special=False)
    assert len(plain) > 2 and {kind for _, kind in plain} == {NORMAL}


def test_the_unknown_token_is_unknown_even_when_its_type_is_control() -> None:
    # BERT's [UNK] is CONTROL in the GGUF; a word no piece covers still shows as unknown
    bert = _tok("ggml-vocab-bert-bge.gguf")
    assert int(bert.vocab.types[bert.vocab.unk_id]) == 3  # CONTROL
    assert _kinds("ggml-vocab-bert-bge.gguf", "ab \u1780\u17b6\u1793", add_special=False) == [
        (b"ab", NORMAL), ("\u1780\u17b6\u1793".encode(), UNKNOWN)
    ]  # fmt: skip
    assert bert.token_kind(bert.vocab.sep_id) is SPECIAL


def test_unigram_unknown_character() -> None:
    t5 = _tok("t5-botchan-en-unigram-1000.gguf")
    kinds = _kinds("t5-botchan-en-unigram-1000.gguf", "a 中", add_special=False)
    assert (UNKNOWN in {k for _, k in kinds}) and t5.token_kind(t5.vocab.unk_id) is UNKNOWN


def test_an_unknown_id_that_is_also_bos_or_eos_stays_special() -> None:
    # GPT-NeoX, MPT, StarCoder and Refact GGUFs name <|endoftext|> as BOS, EOS and UNK at once
    gpt2 = _tok("ggml-vocab-gpt-2.gguf").vocab
    eot = gpt2.token_to_id["<|endoftext|>"]
    shared = Tokenizer(dataclasses.replace(gpt2, unk_id=eot, bos_id=eot, eos_id=eot))
    assert shared.token_kind(eot) is SPECIAL
    others = dict.fromkeys(("bos_id", "eos_id", "eot_id", "eom_id", "sep_id", "pad_id", "mask_id"), -1)
    alone = Tokenizer(dataclasses.replace(gpt2, unk_id=eot, **others))
    assert alone.token_kind(eot) is UNKNOWN
