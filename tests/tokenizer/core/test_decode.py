"""token_to_piece / detokenize: per-family pieces, BOS/EOS removal, lstrip, the clean_spaces passes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from support import ASSETS
from tui_tok.errors import TokenizeError
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.core.decode import clean_spaces
from tui_tok.tokenizer.tokenizer import Tokenizer


def reference_clean_spaces(text: bytes) -> bytes:
    """llama-vocab.cpp:3846-3896 transcribed: three in-place passes over a char buffer."""
    buf = bytearray(text)
    total = len(buf)
    # pass 1
    total1, total = total, (1 if total else 0)
    for i in range(1, total1):
        x = buf[i]
        if buf[i - 1] == 0x20 and x in b"?!.,":
            total -= 1
        buf[total] = x
        total += 1
    # pass 2
    total2, total = total, (1 if total else 0)
    i = 1
    while i < total2:
        x = buf[i]
        if x == 0x27 and i + 1 < total2 and buf[i - 1] == 0x20 and buf[i + 1] == 0x20:
            total -= 1
            i += 1
            buf[i] = 0
        buf[total] = x
        total += 1
        i += 1
    # pass 3
    total3, total = total, (1 if total else 0)
    for i in range(1, total3):
        x = buf[i]
        if buf[i - 1] == 0x20 and x == 0x27 and i + 1 < total3:
            x1 = buf[i + 1]
            if x1 in b"sm":
                total -= 1
            elif x1 not in b"td" and i + 2 < total3 and (x1, buf[i + 2]) in ((0x72, 0x65), (0x76, 0x65)):
                total -= 1
        buf[total] = x
        total += 1
    return bytes(buf[:total])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b" ", b"'", b"?", b"!", b".", b",", b"s", b"m", b"re", b"ve", b"t", b"ll", b"x"]),
                max_size=30).map(b"".join))  # fmt: skip
def test_clean_spaces_equals_the_c_loops(text: bytes) -> None:
    assert clean_spaces(text) == reference_clean_spaces(text)


def test_clean_spaces_examples() -> None:
    assert clean_spaces(b"Hello , world ! ' s it 're") == b"Hello, world!'s it're"
    assert clean_spaces(b"a ' ' b") == b"a'' b"
    assert clean_spaces(b" don 't you 'll") == b" don 't you 'll"


def toy(model: str, tokens: list[str], types: list[int], **extra) -> Tokenizer:
    meta = {"tokenizer.ggml.model": model, "tokenizer.ggml.tokens": tokens, "tokenizer.ggml.token_type": types,
            "tokenizer.ggml.merges": [], **extra}  # fmt: skip
    return Tokenizer.from_metadata(meta)


def test_spm_pieces_by_type() -> None:
    tok = toy("llama", ["<unk>", "<s>", "</s>", "▁a▁b", "<0x0A>", "<0xZZ>", "<tag>", "u"], [2, 3, 3, 1, 6, 6, 4, 5])
    assert [tok.token_to_piece(i) for i in range(8)] == [
        b"<unk>",
        b"<s>",
        b"</s>",
        b" a b",
        b"\n",
        b"\0",
        b"<tag>",
        b"",
    ]
    assert tok.token_to_piece(1, special=False) == b"" and tok.token_to_piece(6, special=False) == b"<tag>"
    assert tok.token_to_piece(3, lstrip=1) == b"a b"
    with pytest.raises(TokenizeError, match="out of range"):
        tok.token_to_piece(8)


def test_bpe_pieces_unk_byte_and_escape_whitespaces() -> None:
    tok = toy("gpt2", ["a", "Ġb", " b", "<|endoftext|>"], [1, 1, 1, 3])
    assert tok.token_to_piece(1) == b" b"
    assert tok.token_to_piece(2) == b"[UNK_BYTE_0x20 b]b"
    tok = toy("gemma4", ["<pad>", "▁b", "<0x41>"], [3, 1, 6])
    assert tok.token_to_piece(1) == b" b" and tok.token_to_piece(2) == b"A"


def test_test_and_plamo2_pieces() -> None:
    assert toy("test", ["a"], [1]).token_to_piece(0) == b"0"
    tok = toy("test", [f"t{i}" for i in range(300)], [1] * 300)
    assert tok.token_to_piece(255) == b"ff"
    tok = toy("plamo2", ["<|plamo:unk|>", "<0x41>", "<0xZZ>", "▁x"], [2, 6, 6, 1])
    assert [tok.token_to_piece(i) for i in range(4)] == [b"<|plamo:unk|>", b"A", b"<0xZZ>", "▁x".encode()]


def test_detokenize_bos_eos_and_leading_space() -> None:
    tok = load_tokenizer(ASSETS / "ggml-vocab-phi-3.gguf")
    ids = tok.encode("Hi")  # [BOS, ▁Hi]
    assert tok.detokenize(ids) == b" Hi"  # <s> hidden; the first token (BOS) took the lstrip
    assert tok.detokenize(ids[1:]) == b"Hi"
    assert tok.detokenize(ids, remove_special=True) == b" Hi"  # BOS dropped, so no lstrip
    assert tok.detokenize(ids, unparse_special=True) == b"<s> Hi"
    eos = tok.vocab.eos_id
    assert tok.detokenize([*ids[1:], eos], unparse_special=True) == b"Hi<|endoftext|>"  # add_eos is off


def test_detokenize_applies_clean_spaces_on_gpt2() -> None:
    tok = load_tokenizer(ASSETS / "ggml-vocab-gpt-2.gguf")
    ids = tok.encode("Hello , world ! ' s it 're", add_special=False)
    assert tok.decode(ids) == "Hello, world!'s it're"


def test_decode_replaces_invalid_utf8() -> None:
    tok = load_tokenizer(ASSETS / "ggml-vocab-phi-3.gguf")
    byte_e2 = tok.vocab.token_to_id["<0xE2>"]
    assert tok.decode([byte_e2]) == "\ufffd"
    assert tok.detokenize([byte_e2]) == b"\xe2"
