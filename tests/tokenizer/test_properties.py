"""Invariants on every available vocab: no crash on any text, spans in order (tiling the input for
lossless families), and byte-exact round trips through the pieces; in every code-path mode
(``Tokenizer(paths=...)``), on short texts and on long ones (``long_text.py``: the big-input paths)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from long_text import LONG_TEXT

from support import VocabFile, vocab_files
from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.core.byte_level import BYTE_TO_CHAR
from tui_tok.tokenizer.core.decode import clean_spaces
from tui_tok.tokenizer.core.paths import MODES
from tui_tok.tokenizer.core.types import TokenAttr, VocabType

VOCABS = list(vocab_files())
C_SPACE = b" \t\n\v\f\r"
STRIP = int(TokenAttr.LSTRIP | TokenAttr.RSTRIP)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LONG_SETTINGS = settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)

# text with the characters tokenizers treat specially, plus anything
TEXT = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from([" ", "  ", "\n", "\t", "a", "Z", "1", "'s", "é", "中", "🦙", "\u2581", "<s>", "</s>",
                              "<|im_end|>", "<unk>", "<|endoftext|>", "<mask>", "\u00a0", "\u3000"]),
             max_size=20).map("".join),
)  # fmt: skip


def lossless(tok) -> bool:
    """Every byte has a token: SPM byte fallback, byte-level BPE with all 256 characters (BPE drops
    bytes it has no token for, as llama.cpp does), RWKV, PLaMo2."""
    v = tok.vocab
    if v.type in (VocabType.RWKV, VocabType.PLAMO2):
        return True
    if v.type not in (VocabType.SPM, VocabType.BPE):
        return False
    t2id = v.token_to_id
    return all(f"<0x{b:02X}>" in t2id or BYTE_TO_CHAR[b] in t2id and v.type is VocabType.BPE for b in range(256))


def check_spans(tok, data: bytes, tokens) -> None:
    """Spans are ordered and disjoint; for lossless families they tile the input, except whitespace
    an LSTRIP/RSTRIP special token swallowed."""
    pos = 0
    attrs = tok.vocab.attrs
    tiles = lossless(tok)
    for i, t in enumerate(tokens):
        assert 0 <= t.start <= t.end <= len(data), (t, len(data))
        assert t.start >= pos, (tokens, data)
        if tiles and t.start > pos:
            gap = data[pos : t.start]
            nxt = tokens[i]
            prev = tokens[i - 1] if i else None
            stripped = (attrs[nxt.id] & STRIP) or (prev is not None and attrs[prev.id] & STRIP)
            assert stripped and all(b in C_SPACE for b in gap), (gap, tokens)
        pos = t.end
    if tiles and pos < len(data):
        assert tokens and attrs[tokens[-1].id] & STRIP and all(b in C_SPACE for b in data[pos:]), (data[pos:], tokens)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("vf", VOCABS, ids=[v.name for v in VOCABS])
@SETTINGS
@given(text=TEXT, add=st.booleans(), parse=st.booleans())
def test_any_text_encodes_with_ordered_spans(
    load_cached, vf: VocabFile, mode: str, text: str, add: bool, parse: bool
) -> None:
    _spans_and_ids(load_cached(vf.path, mode), text, add, parse)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("vf", VOCABS, ids=[v.name for v in VOCABS])
@LONG_SETTINGS
@given(text=LONG_TEXT, parse=st.booleans())
def test_long_text_encodes_with_ordered_spans(load_cached, vf: VocabFile, mode: str, text: str, parse: bool) -> None:
    """Thousands of characters: new words enough for the batches, now and then a huge word."""
    _spans_and_ids(load_cached(vf.path, mode), text, True, parse)


def _spans_and_ids(tok, text: str, add: bool, parse: bool) -> None:  # type: ignore[no-untyped-def]
    data = text.encode()
    tokens = tok.tokenize(text, add_special=add, parse_special=parse)
    assert [t.id for t in tokens] == tok.encode(data, add_special=add, parse_special=parse)
    check_spans(tok, data, tokens)
    tok.decode([t.id for t in tokens])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("vf", VOCABS, ids=[v.name for v in VOCABS])
@SETTINGS
@given(data=st.binary(max_size=24))
def test_any_bytes_encode_or_fail_like_llama_cpp(load_cached, vf: VocabFile, mode: str, data: bytes) -> None:
    tok = load_cached(vf.path, mode)
    try:
        tokens = tok.tokenize(data, add_special=False)
    except TokenizeError:
        with pytest.raises(TokenizeError):  # the ids-only path fails alike
            tok.encode(data, add_special=False)
        return  # llama.cpp throws too (e.g. a code point above U+10FFFF in BPE/WPM)
    check_spans(tok, data, tokens)
    assert tok.encode(data, add_special=False) == [t.id for t in tokens]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("vf", [v for v in VOCABS], ids=[v.name for v in VOCABS])
@SETTINGS
@given(text=TEXT)
def test_pieces_round_trip_on_lossless_vocabs(load_cached, vf: VocabFile, mode: str, text: str) -> None:
    tok = load_cached(vf.path, mode)
    v = tok.vocab
    if not lossless(tok) or (v.type is VocabType.SPM or v.escape_whitespaces) and "\u2581" in text:
        return  # SPM (and gemma4) render a literal ▁ as a space
    data = text.encode()
    ids = tok.encode(data, add_special=False)
    pieces = b"".join(tok.token_to_piece(i) for i in ids)
    if any(tok.vocab.attrs[i] & STRIP for i in ids):
        return  # LSTRIP/RSTRIP specials drop whitespace on purpose
    prefix = b" " if v.type is VocabType.SPM and v.add_space_prefix and data else b""
    assert pieces == prefix + data
    expected = clean_spaces(data) if v.clean_spaces else data
    assert tok.detokenize(ids, unparse_special=True) == expected


@settings(max_examples=50, deadline=None)
@given(text=st.text(st.characters(min_codepoint=0xD700, max_codepoint=0xE100, blacklist_categories=()), max_size=8))
def test_lone_surrogates_are_encoded_not_rejected(load_cached, text: str) -> None:
    vf = (
        VOCABS[0]
        if not any(v.name == "qwen3-vocab" for v in VOCABS)
        else next(v for v in VOCABS if v.name == "qwen3-vocab")
    )
    tok = load_cached(vf.path)
    tokens = tok.tokenize(text, add_special=False)
    assert all(0 <= t.start <= t.end for t in tokens)
