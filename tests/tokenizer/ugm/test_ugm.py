"""UGM (T5 / XLM-R unigram) against llama.cpp: conformance rows, the faithful byte path as oracle
for the cached fast path, normaliser rules, scoring rules and span invariants."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from support import HAVE_SHARED, SHARED_MISSING, conformance_rows, vocab_file
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.core.vocab import vocab_from_metadata
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.tokenizer.ugm.charsmap import build_charsmap
from tui_tok.tokenizer.ugm.encoder import UgmEncoder
from tui_tok.tokenizer.ugm.normalize import UgmNormalizer

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ["t5-botchan-en-unigram-1000", "nomic-bert-moe"]


@cache
def tok(name: str) -> Tokenizer:
    if name == "nomic-bert-moe" and not HAVE_SHARED:
        pytest.skip(SHARED_MISSING)
    return load_tokenizer(vocab_file(name).path)


def encoder(name: str) -> UgmEncoder:
    enc = tok(name).encoder
    assert isinstance(enc, UgmEncoder)
    return enc


# characters the UGM normaliser treats specially: spaces and space-like controls, NFKC
# compositions (letter + combining mark, Hangul jamo), ligatures, full width, U+2581, NUL
PIECES = [" ", "  ", "\t", "\n", "\r\n", "a", "Z", "the", "é", "e\u0301", "A\u0300", "<\u0338", "ﬁ", "①", "Ａ", "中文",
          "ᄀ", "ᅡ", "ᆨ", "\u2581", "\u3000", "\u00a0", "\u200b", "\x00", "\x7f", "🦙", "ª", "\u0300", "'s", "."]  # fmt: skip
TEXT = st.one_of(st.text(max_size=30), st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
DATA = st.one_of(TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=24))


# -- llama.cpp's own output ------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_conformance_ids_and_span_order(name: str) -> None:
    t = tok(name)
    rows = conformance_rows(name)
    assert len(rows) > 200
    bad = []
    for row in rows:
        text, add, parse = row["text"], row["add_special"], row["parse_special"]
        if t.encode(text, add_special=add, parse_special=parse) != row["ids"]:
            bad.append(text)
        pos = 0
        for token in t.tokenize(text, add_special=add, parse_special=parse):
            assert pos <= token.start <= token.end, (text, token)
            pos = token.end
        assert pos <= len(text.encode("utf-8", "surrogatepass"))
    assert bad == []


@pytest.mark.parametrize("name", NAMES)
def test_conformance_rows_through_the_faithful_path(name: str) -> None:
    """The byte-by-byte port gives the same ids (raw text rows without specials)."""
    enc = encoder(name)
    for row in conformance_rows(name):
        if row["add_special"] or row["parse_special"]:
            continue
        data = row["text"].encode("utf-8", "surrogatepass")
        assert [p[0] for p in enc.encode_reference(data)] == row["ids"], row["text"]


# -- fast paths == faithful path -------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@given(data=DATA)
@SETTINGS
def test_cached_units_equal_the_faithful_path(name: str, data: bytes) -> None:
    enc = encoder(name)
    assert enc.tables.units_ok
    fast = enc.encode_fragment(data, after_special=False)
    assert fast == enc.encode_reference(data)
    assert enc.encode_whole(data) == fast
    assert enc.encode_fragment(data, after_special=True) == fast  # warm cache, flag unused


@pytest.mark.parametrize("name", NAMES)
@given(data=DATA)
@SETTINGS
def test_spans_tile_in_order_within_the_input(name: str, data: bytes) -> None:
    pieces = encoder(name).encode_fragment(data, after_special=False)
    end = 0
    for _, start, stop in pieces:
        assert start == end and stop >= start
        end = stop
    assert end <= len(data)
    assert bool(pieces) == bool(encoder(name).normalizer.normalize(data).text)


def test_spans_give_vanished_spaces_to_the_next_token() -> None:
    t = tok("t5-botchan-en-unigram-1000")
    tokens = t.tokenize("  the  cat ", add_special=False)
    spans = [(x.start, x.end) for x in tokens]
    assert spans[0][0] == 0 and spans[-1][1] == 10  # the trailing space is covered by no token
    assert b"".join(b"  the  cat "[s:e] for s, e in spans) == b"  the  cat"


# -- normaliser ------------------------------------------------------------------------------

CHARSMAP = build_charsmap({"ｂ".encode(): b"b", b"\t": b" ", "e\u0301".encode(): "é".encode(), b"x": b"",
                           "①".encode(): b"1 2"})  # fmt: skip


@pytest.mark.parametrize("prepend", [False, True])
@pytest.mark.parametrize("merge", [False, True])
@given(data=st.one_of(DATA, st.lists(st.sampled_from(["a", "ｂ", " ", "\t", "e\u0301", "x", "①", "<u", "<u>",
                                                      "\xff"]), max_size=12).map(lambda p: "".join(p).encode(
                                                          "utf-8", "surrogateescape"))))  # fmt: skip
@settings(max_examples=80, deadline=None)
def test_normaliser_offsets_map_every_boundary_in_order(prepend: bool, merge: bool, data: bytes) -> None:
    from tui_tok.tokenizer.ugm.charsmap import Charsmap

    for user_defined in ((), (b"<u>", "aｂ".encode())):
        n = UgmNormalizer(charsmap=Charsmap.from_blob(CHARSMAP), user_defined=user_defined, prepend=prepend,
                          merge=merge)  # fmt: skip
        for flag in (False, True):
            ref = n.normalize(data, space_prepended=flag)
            assert len(ref.offsets) == len(ref.text) + 1
            assert ref.offsets == sorted(ref.offsets) and ref.offsets[-1] <= len(data)


@pytest.mark.parametrize(
    "prepend,merge,text,expected",
    [
        (False, False, b"a b", "a▁b"),
        (True, False, b" a  b", "▁▁a▁▁b"),  # only the first run gets the prefix
        (False, True, b"  a   b  ", "▁a▁b"),  # merge gives every word its ▁, even without prepend
        (True, True, b"a\tb", "▁a▁b"),  # \t becomes a space through the charsmap
        (True, True, "①".encode(), "▁1▁2"),  # a replacement holding a space
        (True, True, b"axa", "▁aa"),  # deleted character
        (True, True, "ｂ e\u0301".encode(), "▁b▁é"),
        (True, True, b"\xffa", "▁\ufffda"),  # invalid byte -> U+FFFD
        (True, True, b"\xc0\x80", "▁\x00"),  # llama.cpp's decoder takes the overlong form as is
    ],
)
def test_whitespace_and_replacement_rules(prepend: bool, merge: bool, text: bytes, expected: str) -> None:
    from tui_tok.tokenizer.ugm.charsmap import Charsmap

    n = UgmNormalizer(charsmap=Charsmap.from_blob(CHARSMAP), user_defined=(), prepend=prepend, merge=merge)
    got = n.normalize(text).text
    if text == b"\xc0\x80":
        assert got == "▁".encode() + b"\xc0\x80"
    else:
        assert got.decode() == expected


def test_user_defined_prefix_is_copied_raw_even_without_a_token_end() -> None:
    """naive_trie::get_longest_prefix: 'aｂ' follows the trie of token 'aｂc', so it is not normalised."""
    from tui_tok.tokenizer.ugm.charsmap import Charsmap

    n = UgmNormalizer(charsmap=Charsmap.from_blob(CHARSMAP), user_defined=("aｂc".encode(),), prepend=False,
                      merge=False)  # fmt: skip
    assert n.normalize("aｂx ｂ".encode()).text.decode() == "aｂ▁b"


# -- search rules on small vocabs ------------------------------------------------------------


def t5_vocab(tokens: list[tuple[str, float, int]], **meta: Any):  # type: ignore[no-untyped-def]
    base = [("<pad>", 0.0, 3), ("</s>", 0.0, 3), ("<unk>", 0.0, 2)]
    rows = base + tokens
    md: dict[str, Any] = {
        "tokenizer.ggml.model": "t5",
        "tokenizer.ggml.tokens": [r[0] for r in rows],
        "tokenizer.ggml.scores": [r[1] for r in rows],
        "tokenizer.ggml.token_type": [r[2] for r in rows],
        "tokenizer.ggml.add_space_prefix": True,
        "tokenizer.ggml.remove_extra_whitespaces": True,
    }
    md.update(meta)
    return vocab_from_metadata(md)


def ids(enc: UgmEncoder, text: str) -> list[int]:
    pieces = enc.encode_fragment(text.encode(), after_special=False)
    assert enc.encode_reference(text.encode()) == pieces == enc.encode_whole(text.encode())
    return [p[0] for p in pieces]


def test_ties_keep_the_earliest_start() -> None:
    # "▁a"+"bc" and "▁ab"+"c" both score -2: the later candidate is not strictly greater
    # ("bc" reaches the end from an earlier start than "c"; >= would give [4, 6])
    enc = UgmEncoder(t5_vocab([("▁a", -1.0, 1), ("▁ab", -1.0, 1), ("bc", -1.0, 1), ("c", -1.0, 1)]))
    assert ids(enc, "abc") == [3, 5]


def test_unknowns_collapse_and_user_defined_scores_zero() -> None:
    enc = UgmEncoder(t5_vocab([("▁", -2.0, 1), ("a", -1.0, 1), ("ab", -50.0, 4)]))
    assert ids(enc, "xyz a") == [3, 2, 3, 4]  # ▁ <unk> ▁ a: x,y,z collapse into one <unk>
    pieces = enc.encode_fragment(b"xyz a", after_special=False)
    assert pieces[1] == (2, 0, 3)
    assert ids(enc, "ab") == [3, 5]  # user-defined 'ab' beats 'a'+unk although its stored score is -50


def test_unknown_score_is_float32_min_minus_ten() -> None:
    enc = UgmEncoder(t5_vocab([("▁", -0.1, 1), ("a", -0.3, 1)]))
    assert enc.tables.unk_score == float(np.float32(-0.3) - np.float32(10))
    assert enc.tables.unk_score != -0.3 - 10  # not the double sum


def test_control_unused_tokens_join_the_search() -> None:
    enc = UgmEncoder(t5_vocab([("▁", -1.0, 1), ("<unused0>", -1.0, 3), ("<", -1.0, 1)]))
    assert ids(enc, "<unused0>")[1] == 4  # CONTROL with 'unused' in its text gets UNUSED: in the trie
    enc2 = UgmEncoder(t5_vocab([("▁", -1.0, 1), ("<ctl>", -1.0, 3), ("<", -1.0, 1)]))
    assert 4 not in ids(enc2, "<ctl>")


def test_inner_space_token_disables_the_unit_cache() -> None:
    enc = UgmEncoder(t5_vocab([("▁", -3.0, 1), ("a", -1.0, 1), ("a▁a", -0.5, 1), ("b", -1.0, 1)]))
    assert not enc.tables.units_ok
    assert ids(enc, "a a b") == [3, 5, 3, 6]


def test_user_defined_space_disables_the_unit_cache() -> None:
    enc = UgmEncoder(t5_vocab([("▁", -3.0, 1), ("a", -1.0, 1), ("a b", -0.5, 4)]))
    assert not enc.tables.units_ok
    # 'a b' follows the user-defined trie, so the charsmap is skipped, but the whitespace rules
    # still apply to the copied bytes: "▁a▁b▁a", and 'b' alone is unknown
    assert ids(enc, "a b a") == [3, 4, 3, 2, 3, 4]


def test_scores_that_could_round_fall_back_to_the_faithful_path() -> None:
    # 1e-30 needs ~122 fraction bits: sums of such scores are not provably exact in a double
    enc = UgmEncoder(t5_vocab([("▁", -1e-30, 1), ("a", -1.0, 1), ("b", -1e4, 1)]))
    assert enc.tables.max_exact_bytes == 0
    assert ids(enc, "a b") == [3, 4, 3, 5]


def test_newline_is_a_separator_only_where_the_charsmap_makes_it_a_space() -> None:
    assert encoder("t5-botchan-en-unigram-1000").tables.separators is None  # '\n' is kept there
    if HAVE_SHARED:
        table = encoder("nomic-bert-moe").tables.separators
        assert table is not None and table[ord("\n")] == ord(" ") and table[ord("a")] == ord("a")


@cache
def flag_encoder(prepend: bool, merge: bool) -> UgmEncoder:
    pieces = ["▁", "▁a", "a", "b", "▁ab", "ab", "é", "▁é", "1", "2", "中", "▁中文", "<u>", "\ufffd", "\x00"]
    tokens = [(p, -1.0 - 0.25 * i, 4 if p == "<u>" else 1) for i, p in enumerate(pieces)]
    return UgmEncoder(t5_vocab(tokens, **{"tokenizer.ggml.add_space_prefix": prepend,
                                          "tokenizer.ggml.remove_extra_whitespaces": merge,
                                          "tokenizer.ggml.precompiled_charsmap": CHARSMAP}))  # fmt: skip


@pytest.mark.parametrize("prepend", [False, True])
@pytest.mark.parametrize("merge", [False, True])
@given(data=st.one_of(DATA, st.lists(st.sampled_from(["a", "b", "ｂ", " ", "  ", "\t", "e\u0301", "x", "①", "<u>",
                                                      "中文", "\xff"]), max_size=12).map(lambda p: "".join(p).encode(
                                                          "utf-8", "surrogateescape"))))  # fmt: skip
@settings(max_examples=60, deadline=None)
def test_every_whitespace_mode_matches_the_faithful_path(prepend: bool, merge: bool, data: bytes) -> None:
    enc = flag_encoder(prepend, merge)
    assert enc.tables.units_ok
    ref = enc.encode_reference(data)
    assert enc.encode_fragment(data, after_special=False) == ref == enc.encode_whole(data)


def test_corrupt_charsmap_fails_only_on_text_that_reaches_the_corruption() -> None:
    from tui_tok.errors import VocabError

    blob = build_charsmap({b"a": b"zz", b"q": b"Q"})[:-1]  # last replacement ('Q') loses its NUL
    enc = UgmEncoder(t5_vocab([("▁", -1.0, 1), ("a", -1.0, 1), ("zz", -1.0, 1)],
                              **{"tokenizer.ggml.precompiled_charsmap": blob}))  # fmt: skip
    assert ids(enc, "a a") == [3, 5, 3, 5]
    with pytest.raises(VocabError, match="NUL-terminated"):
        enc.encode_fragment(b"aq", after_special=False)
    with pytest.raises(VocabError, match="NUL-terminated"):
        enc.encode_reference(b"aq")
