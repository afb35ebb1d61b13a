"""llama.cpp's Unicode tables and lenient UTF-8 decoder, checked against independent sources."""

from __future__ import annotations

import unicodedata

import regex
from hypothesis import given, settings, strategies as st

from tui_tok.tokenizer.unicode import data as u

_CATEGORY_FLAG = {
    "L": u.LETTER,
    "N": u.NUMBER,
    "Z": u.SEPARATOR,
    "M": u.ACCENT_MARK,
    "P": u.PUNCTUATION,
    "S": u.SYMBOL,
    "C": u.CONTROL,
}


def test_categories_agree_with_python_unicodedata_where_both_assign() -> None:
    """Python 3.11 knows Unicode 14.0, llama.cpp 15.1: on code points 14.0 assigned, they agree."""
    table = u.flags_table()
    mismatches = []
    for cp in range(0x110000):
        cat = unicodedata.category(chr(cp))
        if cat == "Cn":
            continue
        if not table[cp] & _CATEGORY_FLAG[cat[0]]:
            mismatches.append(cp)
    assert len(mismatches) < 5, [hex(c) for c in mismatches]


def test_unassigned_in_15_1_are_undefined() -> None:
    """U+1C89 was assigned in Unicode 16: llama.cpp (15.1) says UNDEFINED; U+2EBF0 (15.1) is a letter."""
    assert u.cpt_flags(0x1C89) & u.UNDEFINED
    assert u.cpt_flags(0x2EBF0) & u.LETTER
    assert u.cpt_flags(0x110000) == u.UNDEFINED


def test_whitespace_set_is_white_space_property() -> None:
    expected = {cp for cp in range(0x3001) if regex.match(r"\s", chr(cp))}
    assert u.WHITESPACE_CPS == expected


def test_lowercase_is_simple_mapping() -> None:
    assert u.to_lower(ord("İ")) == ord("i")  # not "i̇" as str.lower() gives
    assert u.to_lower(ord("Σ")) == ord("σ")
    assert u.to_lower(ord("a")) == ord("a")


def test_nfd_first() -> None:
    assert u.nfd_first(ord("é")) == ord("e")
    assert u.nfd_first(0xAC00) == 0x1100  # Hangul syllable -> leading jamo
    assert u.nfd_first(ord("x")) == ord("x")


def test_lowercase_map_agrees_with_to_lower() -> None:
    table = u.lowercase_map()
    assert table[ord("Σ")] == ord("σ") and ord("a") not in table
    assert all(u.to_lower(cp) == low != cp for cp, low in table.items())


def test_nfd_ranges_agree_with_nfd_first() -> None:
    firsts, lasts, values = u.nfd_ranges()
    assert len(firsts) == len(lasts) == len(values) > 0
    assert (firsts <= lasts).all() and (lasts[:-1] < firsts[1:]).all()
    for first, last, value in zip(firsts.tolist(), lasts.tolist(), values.tolist()):
        assert u.nfd_first(first) == u.nfd_first(last) == value
        assert u.nfd_first(last + 1) == last + 1 or (last + 1) in set(firsts.tolist())


def test_category_class_matches_table() -> None:
    table = u.flags_table()
    pattern = regex.compile(f"[{u.category_class(u.NUMBER)}]")
    for cp in list(range(0, 0x3000)) + list(range(0x1D7CE, 0x1D800)):
        if 0xD800 <= cp < 0xE000:
            continue
        assert bool(pattern.match(chr(cp))) == bool(table[cp] & u.NUMBER), hex(cp)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_valid_utf8_decodes_like_python(s: str) -> None:
    try:
        data = s.encode("utf-8")
    except UnicodeEncodeError:
        return
    assert u.cpts_from_utf8(data) == [ord(c) for c in s]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_lenient_decode_consumes_whole_sequences(data: bytes) -> None:
    """Each cp is U+FFFD for one bad byte, or a whole lead+continuation sequence; valid ones re-encode."""
    cps = u.cpts_from_utf8(data)
    pos = 0
    for cp in cps:
        lead = data[pos]
        size = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        seq = data[pos : pos + size]
        whole = len(seq) == size and 0xC0 <= lead < 0xF8 and all(b & 0xC0 == 0x80 for b in seq[1:])
        if lead < 0x80:
            assert cp == lead
        elif not whole:
            assert cp == 0xFFFD
            size = 1
        elif cp <= 0x10FFFF and u.cpt_to_utf8(cp) != seq:
            assert len(u.cpt_to_utf8(cp)) < size  # an overlong form: no range checks, as llama.cpp
        pos += size
    assert pos == len(data)


def test_lenient_decode_quirks() -> None:
    assert u.cpts_from_utf8(b"\xc0\x80") == [0]
    assert u.cpts_from_utf8(b"\xed\xa0\x80") == [0xD800]
    assert u.cpts_from_utf8(b"\xf4\x90\x80\x80") == [0x110000]
    assert u.cpts_from_utf8(b"\xe2\x82A") == [0xFFFD, 0xFFFD, ord("A")]
    assert u.cpts_from_utf8(b"\xff\x80") == [0xFFFD, 0xFFFD]
