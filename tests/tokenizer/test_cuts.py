"""Proven cuts (``tokenizer.cuts``) and edits spliced between them (``explore.cut_edit``): the ids
of a text are the ids of its parts between allowed cuts, and a spliced edit gives the ids of the
whole new text, for SPM, UGM, WPM and RWKV (bundled assets; gemma3, nomic, mistral from ../shared)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from support import ASSETS, SHARED, vocab_files
from tui_tok.explore.cut_edit import encode_between, plan_cut_edit, table_for
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.core.types import VocabType
from tui_tok.tokenizer.cuts import CutTable
from tui_tok.tokenizer.tokenizer import Tokenizer

CUT_FAMILIES = (VocabType.SPM, VocabType.UGM, VocabType.WPM, VocabType.RWKV)
EXTRA = ("gemma-4", "gemma3-270m-vocab", "nomic-bert-moe", "mistral-spm-v1", "llama-spm", "t5-botchan-en-unigram-1000")


@cache
def _loaded(path: str) -> tuple[Tokenizer, CutTable | None]:
    tok = load_tokenizer(path)
    return tok, table_for(tok)


def _vocabs() -> list:
    out = []
    for v in vocab_files():
        if v.bundled or v.name in EXTRA or (ASSETS / v.path.name).is_file():  # a shared copy of an asset wins
            out.append(pytest.param(v, id=v.name))
    return out


def _cut_vocab(v) -> tuple[Tokenizer, CutTable]:
    tok, table = _loaded(str(v.path))
    if tok.vocab.type not in CUT_FAMILIES and table is None:
        pytest.skip(f"{v.name}: {tok.vocab.type.name} with this pre-tokenizer has no proven cuts here")
    assert table is not None
    return tok, table


VOCABS = _vocabs()
SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
ATOMS = [
    " ", "  ", "\n", "\n\n", "\t", "\r\n", "a", "Z", "the", "ing", "tokenizer", "1", "2024", "'s", ".", ",", "!", "?",
    "(", ")", "-", "é", "ü", "ñ", "Ж", "日本", "語", "中文", "🙂", "🦙", "\u2581", "\u00a0", "\u3000", "ﬁ", "Å", "e\u0301",
    "<s>", "</s>", "<unk>", "<start_of_turn>", "<b>", "[CLS]", "<|endoftext|>", "<mask>", "    ", "\\x41", "ＡＢ",
    "<|assistant|>", "<|end|>", " <|user|> ", "<start_of_image>", "[multimodal]", "\t\t",
]  # fmt: skip
LONG_TEXT = st.lists(st.sampled_from(ATOMS), min_size=0, max_size=600).map("".join)
TEXT = st.one_of(LONG_TEXT, st.text(max_size=200))


def _whole(tok: Tokenizer, data: bytes, parse_special: bool) -> list[int]:
    return tok.tokenize_arrays(data, add_special=False, parse_special=parse_special)[0].tolist()


def _parts(tok: Tokenizer, data: bytes, cuts: list[int], parse_special: bool) -> list[int]:
    bounds = [0, *cuts, len(data)]
    ids: list[int] = []
    for a, b in zip(bounds, bounds[1:]):
        mid = encode_between(tok, data, a, b, parse_special=parse_special)
        assert mid is not None, (a, b)
        ids += mid[0].tolist()
    return ids


@pytest.mark.parametrize("v", VOCABS)
@SETTINGS
@given(text=TEXT, pick=st.randoms(use_true_random=False), parse_special=st.booleans())
def test_parts_between_cuts_concatenate_to_the_whole(v, text: str, pick, parse_special: bool) -> None:
    tok, table = _cut_vocab(v)
    data = text.encode("utf-8", "surrogatepass")
    if table.max_bytes is not None and len(data) > table.max_bytes:
        return
    allowed = table.allowed(data, 0, len(data)).tolist()
    cuts = sorted(pick.sample(allowed, min(len(allowed), 12)))
    assert _parts(tok, data, cuts, parse_special) == _whole(tok, data, parse_special)


@pytest.mark.parametrize("v", VOCABS)
@SETTINGS
@given(text=LONG_TEXT, at=st.floats(0, 1), cut=st.integers(0, 5), insert=st.lists(st.sampled_from(ATOMS), max_size=4).map("".join),
       parse_special=st.booleans())  # fmt: skip
def test_spliced_edit_is_the_whole_encoding(
    v, text: str, at: float, cut: int, insert: str, parse_special: bool
) -> None:
    tok, table = _cut_vocab(v)
    i = int(at * len(text))
    new_text = text[:i] + insert + text[i + cut :]
    old, new = text.encode(), new_text.encode()
    old_tokens = tok.tokenize_arrays(old, add_special=False, parse_special=parse_special)
    splice = plan_cut_edit(tok, table, old, old_tokens, new, parse_special=parse_special)
    want = tok.tokenize_arrays(new, add_special=False, parse_special=parse_special)
    if splice is None:
        assert table.max_bytes is not None and max(len(old), len(new)) > table.max_bytes
        return
    got = splice.tokens(old_tokens)
    assert got[0].tolist() == want[0].tolist()
    assert got[1].tolist() == want[1].tolist() and got[2].tolist() == want[2].tolist()


@pytest.mark.parametrize("v", VOCABS)
def test_plain_prose_has_cuts_and_edits_stay_local(v) -> None:
    """Not vacuous: ordinary text is cut often, so an edit re-encodes a short stretch."""
    tok, table = _cut_vocab(v)
    text = "Hello, world. The quick brown fox (aged 7) jumps over the lazy dog!\n" * 200
    data = text.encode()
    assert len(table.allowed(data, 0, len(data))) > 200
    new = data[:7000] + b"x" + data[7000:]
    splice = plan_cut_edit(tok, table, data, tok.tokenize_arrays(data, add_special=False), new, parse_special=False)
    assert splice is not None and splice.b - splice.a < 200


@pytest.mark.parametrize("v", [p for p in VOCABS if p.values[0].inp is not None])
def test_conformance_texts_split_at_every_cut(v) -> None:
    """llama.cpp's .inp texts (and all of them joined): cut at every allowed cut, ids unchanged."""
    tok, table = _cut_vocab(v)
    texts = v.inp.read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")[:-1]
    for text in [*texts, "\n".join(texts)]:
        data = text.encode()
        if table.max_bytes is not None and len(data) > table.max_bytes:
            continue
        cuts = table.allowed(data, 0, len(data)).tolist()
        for ps in (False, True):
            assert _parts(tok, data, cuts, ps) == _whole(tok, data, ps), text[:80]


def test_ugm_sums_bound_is_exact_arithmetic() -> None:
    """The UGM bound is where a double stops holding every sum of scores: summing the scores that
    many times in float64 and in exact rationals agree below it."""
    tok, table = _loaded(str(next(v.path for v in vocab_files() if v.name == "t5-botchan-en-unigram-1000")))
    assert table is not None and table.max_bytes is not None and table.max_bytes > 1_000_000
    from fractions import Fraction

    from tui_tok.tokenizer.ugm.tables import search_scores

    scores = search_scores(tok.vocab).astype(np.float64)
    worst = float(scores[np.argmax(np.abs(scores))])
    total, exact = 0.0, Fraction(0)
    for s in [worst, *scores[:1000].tolist()] * 20:
        total += s
        exact += Fraction(s)
    assert Fraction(total) == exact


@pytest.mark.skipif(
    not (SHARED / "data" / "gemma3-270m-vocab.gguf").is_file(), reason="gemma3 is in ../shared/data only"
)
def test_gemma3_table_is_cheap() -> None:
    import time

    tok = load_tokenizer(SHARED / "data" / "gemma3-270m-vocab.gguf")
    t0 = time.perf_counter()
    table = table_for(tok)
    assert table is not None and time.perf_counter() - t0 < 2.0


@pytest.mark.parametrize(
    "v", [p for p in VOCABS if p.values[0].name in ("t5-botchan-en-unigram-1000", "nomic-bert-moe")]
)
def test_charsmap_ends_match_every_key(v) -> None:
    """The vectorised walk of ``charsmap_ends`` against ``Charsmap.mapping`` (every key listed)."""
    from fractions import Fraction

    from tui_tok.tokenizer.cuts import charsmap_ends
    from tui_tok.tokenizer.ugm.charsmap import parse_charsmap

    charsmap = parse_charsmap(_loaded(str(v.path))[0].vocab.precompiled_charsmap)
    assert charsmap is not None
    mapping = charsmap.mapping()
    assert mapping
    cross = np.zeros((256, 256), dtype=bool)
    last, first = np.eye(256, dtype=bool), np.eye(256, dtype=bool)
    bad_last, bad_first = np.zeros(256, dtype=bool), np.zeros(256, dtype=bool)
    grow, per_byte, per_chunk = 1, Fraction(0), 0
    for key, value in mapping.items():
        steps, at = 0, 0  # llama.cpp's search steps (unicode_len_utf8) through the replacement
        while at < len(value):
            at += 1 if value[at] < 0xC0 else 2 if value[at] < 0xE0 else 3 if value[at] < 0xF0 else 4
            steps += 1
        assert at == len(value)  # t5's and nomic's replacements are whole characters
        per_byte, per_chunk = max(per_byte, Fraction(steps + 1, len(key))), max(per_chunk, steps + 1)
        for i in range(len(key) - 1):
            cross[key[i], key[i + 1]] = True
        if not value or value[-1] == 0x20:
            bad_last[key[-1]] = True
        else:
            last[key[-1], value[-1]] = True
        if not value or value[0] == 0x20:
            bad_first[key[0]] = True
        else:
            first[key[0], value[0]] = True
        grow = max(grow, -(-len(value) // len(key)))
    got = charsmap_ends(charsmap)
    assert got is not None
    for mine, want in zip(got[:5], (cross, last, first, bad_last, bad_first)):
        assert np.array_equal(mine, want)
    assert got[5] == grow
    assert got[6] == (per_byte, per_chunk)


def test_an_edit_next_to_a_grown_character_is_spliced() -> None:
    """A character the charsmap grows into several tokens (ﬁ -> f i, ﷺ -> 18 letters) puts
    tokens with empty spans on the cut after it: the splice takes the next cut instead."""
    tok, table = _loaded(str(ASSETS / "t5-botchan-en-unigram-1000.gguf"))
    assert table is not None
    text = "Ligatures ﬁ and ﷺ, then prose: the quick brown fox jumps over the lazy dog.\n" * 40
    data = text.encode()
    old_tokens = tok.tokenize_arrays(data, add_special=False)
    for at in (text.index("ﬁ") + 1, text.index("ﷺ") + 1, text.rindex("ﬁ"), text.rindex("ﷺ") + 1):
        new = (text[:at] + "x" + text[at:]).encode()
        splice = plan_cut_edit(tok, table, data, old_tokens, new, parse_special=False)
        assert splice is not None, text[at - 5 : at + 5]
        want = tok.tokenize_arrays(new, add_special=False)
        assert all(np.array_equal(g, w) for g, w in zip(splice.tokens(old_tokens), want))
