"""The special-token partition against a line-by-line port of llama.cpp's loop, and std::sort ties."""

from __future__ import annotations

import random
from unittest.mock import patch

import pytest
from hypothesis import given, settings, strategies as st

from tests.support import HAVE_SHARED, SHARED_MISSING, vocab_files
from tui_tok.tokenizer.arrays.stdsort import libstdcxx_sort
from tui_tok.tokenizer.core.types import TokenAttr
from tui_tok.tokenizer.core.vocab import vocab_from_metadata
from tui_tok.tokenizer.special import finder as special_finder
from tui_tok.tokenizer.special.partition import RAW, SpecialPartitioner

C_SPACE = b" \t\n\v\f\r"


def reference_partition(text: bytes, specials: list[tuple[bytes, int, int]], parse_special: bool) -> list[tuple]:
    """llama-vocab.cpp:3255-3371 transcribed: for each special token in order, split every raw fragment."""
    frags: list[tuple] = [(0, len(text), RAW)] if text else []
    for tb, tid, attr in specials:
        if not parse_special and attr & (TokenAttr.CONTROL | TokenAttr.UNKNOWN):
            continue
        out = []
        for s, e, kind in frags:
            if kind != RAW:
                out.append((s, e, kind))
                continue
            base, length = s, e - s
            while True:
                match = text.find(tb, base, base + length)
                if match < 0:
                    out.append((base, base + length, RAW)) if length > 0 else None
                    break
                if match > base:
                    left = match - base
                    if attr & TokenAttr.LSTRIP:
                        while left > 0 and text[base + left - 1] in C_SPACE:
                            left -= 1
                    if left > 0:
                        out.append((base, base + left, RAW))
                out.append((match, match + len(tb), tid))
                if match + len(tb) < base + length:
                    r_off = match + len(tb)
                    r_len = length - ((match - base) + len(tb))
                    if attr & TokenAttr.RSTRIP:
                        while r_len > 0 and text[r_off] in C_SPACE:
                            r_off += 1
                            r_len -= 1
                    base, length = r_off, r_len
                else:
                    break
        frags = out
    return frags


def make_vocab(texts: list[str], types: list[int], strip: list[int]):
    tokens = ["<unk>", "<s>", "</s>", *texts]
    v = vocab_from_metadata(
        {
            "tokenizer.ggml.model": "llama",
            "tokenizer.ggml.tokens": tokens,
            "tokenizer.ggml.token_type": [2, 3, 3, *types],
        }
    )
    for i, s in enumerate(strip):
        v.attrs[3 + i] |= (0, int(TokenAttr.LSTRIP), int(TokenAttr.RSTRIP), int(TokenAttr.LSTRIP | TokenAttr.RSTRIP))[s]
    return v


ALPHABET = "ab <>\n\t"
token_texts = st.lists(st.text(ALPHABET, min_size=1, max_size=4), min_size=1, max_size=8, unique=True).filter(
    lambda ts: not {"<unk>", "<s>", "</s>"} & set(ts)
)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), texts=token_texts, text=st.text(ALPHABET + "s/unk", max_size=40), parse=st.booleans())
def test_partition_equals_llama_cpp_loop(data, texts, text, parse) -> None:
    types = data.draw(st.lists(st.sampled_from([1, 3, 4]), min_size=len(texts), max_size=len(texts)))
    strip = data.draw(st.lists(st.integers(0, 3), min_size=len(texts), max_size=len(texts)))
    v = make_vocab(texts, types, strip)
    specials = [(v.token_bytes(t), t, int(v.attrs[t])) for t in v.special_tokens]
    raw = text.encode()
    assert SpecialPartitioner(v).partition(raw, parse_special=parse) == reference_partition(raw, specials, parse)


run_tokens = st.lists(
    st.one_of(st.builds(lambda c, n: c * n, st.sampled_from(" \na"), st.integers(1, 7)), st.text("ab \n<", min_size=2, max_size=3)),
    min_size=1, max_size=8, unique=True,
)  # fmt: skip
run_text = st.lists(st.one_of(st.builds(lambda c, n: c * n, st.sampled_from(" \na"), st.integers(1, 20)),
                              st.text("ab \n<", max_size=3)), max_size=8).map("".join)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(data=st.data(), texts=run_tokens, text=run_text, parse=st.booleans())
def test_partition_of_runs_equals_llama_cpp_loop(data, texts, text, parse) -> None:
    types = data.draw(st.lists(st.sampled_from([3, 4]), min_size=len(texts), max_size=len(texts)))
    strip = data.draw(st.lists(st.sampled_from([0, 0, 0, 1, 2]), min_size=len(texts), max_size=len(texts)))
    v = make_vocab(texts, types, strip)
    specials = [(v.token_bytes(t), t, int(v.attrs[t])) for t in v.special_tokens]
    raw = text.encode()
    assert SpecialPartitioner(v).partition(raw, parse_special=parse) == reference_partition(raw, specials, parse)


def test_earlier_longer_token_wins_over_earlier_occurrence() -> None:
    # "bcd" is tried before "ab" (longer first), so in "abcd" it wins although "ab" starts first
    v = make_vocab(["ab", "bcd"], [4, 4], [0, 0])
    assert SpecialPartitioner(v).partition(b"abcd", parse_special=False) == [(0, 1, RAW), (1, 4, 4)]


def test_user_defined_always_split_control_only_with_parse_special() -> None:
    v = make_vocab(["<x>", "<y>"], [4, 3], [0, 0])
    p = SpecialPartitioner(v)
    assert p.partition(b"<x><y>", parse_special=False) == [(0, 3, 3), (3, 6, RAW)]
    assert p.partition(b"<x><y>", parse_special=True) == [(0, 3, 3), (3, 6, 4)]


def test_lstrip_rstrip_drop_c_whitespace_only() -> None:
    v = make_vocab(["<m>"], [3], [3])
    frags = SpecialPartitioner(v).partition(b"a \t<m>\n\xa0b", parse_special=True)
    assert frags == [(0, 1, RAW), (3, 6, 3), (7, 9, RAW)]


def test_stdsort_tie_order_matches_libstdcxx_example() -> None:
    # 20 elements with equal keys among different ones: the order a stable sort would not give
    keys = [3, 1, 3, 2, 3, 3, 1, 2, 2, 3, 1, 3, 2, 3, 1, 1, 2, 3, 3, 2]
    got = libstdcxx_sort(range(len(keys)), key=keys.__getitem__, greater=True)
    assert [keys[i] for i in got] == sorted(keys, reverse=True)
    # recorded from g++ 12 (libstdc++) std::sort with comp = key[a] > key[b]
    assert got == LIBSTDCXX_20


LIBSTDCXX_20 = [2, 4, 5, 18, 9, 0, 11, 13, 17, 19, 3, 7, 8, 12, 16, 10, 15, 14, 6, 1]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), texts=token_texts, text=st.text(ALPHABET + "s/unké€", max_size=40), parse=st.booleans(),
       limits=st.sampled_from([(1, 1), (2, 1), (4, 2), (3, 64)]))  # fmt: skip
def test_partition_with_short_finder_prefixes(data, texts, text, parse, limits) -> None:
    """The finder's prefilter at every prefix length (fewer bytes when many distinct prefixes)."""
    types = data.draw(st.lists(st.sampled_from([1, 3, 4]), min_size=len(texts), max_size=len(texts)))
    v = make_vocab(texts, types, [0] * len(texts))
    specials = [(v.token_bytes(t), t, int(v.attrs[t])) for t in v.special_tokens]
    raw = text.encode()
    with patch.object(special_finder, "_PREFIX", limits[0]), patch.object(special_finder, "_MAX_PREFIXES", limits[1]):
        assert SpecialPartitioner(v).partition(raw, parse_special=parse) == reference_partition(raw, specials, parse)


@pytest.mark.parametrize("vf", vocab_files(), ids=lambda vf: vf.name)
def test_real_vocab_partition_equals_llama_cpp_loop(vf) -> None:
    """Every vocab's own special tokens (thousands for some) spliced into mixed text."""
    if not HAVE_SHARED and vf.path.parent.name != "assets":
        pytest.skip(SHARED_MISSING)
    from tui_tok.loader import load_tokenizer

    tok = load_tokenizer(vf.path)
    v = tok.vocab
    ids = list(v.special_tokens)
    rng = random.Random(7)
    parts = ["Hello [PAD] <| world |>  \n\n   x", "é [ < </", "    def f():\n        return 1\n"]
    parts += [v.token_bytes(t).decode("utf-8", "replace") for t in rng.sample(ids, min(40, len(ids)))]
    raw = "".join(rng.choice(parts) for _ in range(300)).encode()
    specials = [(v.token_bytes(t), t, int(v.attrs[t])) for t in ids]
    for parse in (False, True):
        assert tok.partitioner.partition(raw, parse_special=parse) == reference_partition(raw, specials, parse)
