"""The precompiled charsmap (XCDA) parser: real NFKC tables, built tables, corrupt blobs."""

from __future__ import annotations

import unicodedata
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from support import ASSETS
from tui_tok.errors import VocabError
from tui_tok.gguf import read_gguf
from tui_tok.tokenizer.ugm.charsmap import Charsmap, build_charsmap, parse_charsmap

T5 = ASSETS / "t5-botchan-en-unigram-1000.gguf"


@cache
def t5_charsmap() -> Charsmap:
    blob = read_gguf(T5).get("tokenizer.ggml.precompiled_charsmap")
    assert isinstance(blob, np.ndarray)  # the reader's uint8 array is accepted as is
    return Charsmap.from_blob(blob)


def walk_all(cm: Charsmap, text: str) -> str:
    """Replace every longest match left to right; copy one byte where nothing matches."""
    data = text.encode()
    out = bytearray()
    pos = 0
    while pos < len(data):
        m = cm.longest_match(data, pos)
        if m is None:
            out += data[pos : pos + 1]
            pos += 1
        else:
            out += m[1]
            pos += m[0]
    return out.decode()


@pytest.mark.parametrize(
    "text,expected",
    [
        ("ﬁ", "fi"),  # ligature
        ("①", "1"),  # circled digit
        ("ＡＢＣ", "ABC"),  # full width
        ("㎏", "kg"),  # squared unit
        ("e\u0301", "é"),  # a key of two code points: composition
        ("\u00a0", " "),  # no-break space becomes a plain space
        ("Ǌ", "NJ"),
        ("abc", "abc"),  # ASCII is left alone
    ],
)
def test_known_nfkc_mappings(text: str, expected: str) -> None:
    assert walk_all(t5_charsmap(), text) == expected


def test_full_width_ascii_block_maps_to_ascii() -> None:
    cm = t5_charsmap()
    for cp in range(0xFF01, 0xFF5F):
        assert cm.longest_match(chr(cp).encode(), 0) == (3, chr(cp - 0xFEE0).encode()), hex(cp)


def test_single_characters_are_nfkc() -> None:
    """Latin-1/Latin Extended, number forms, squared units, ligatures, enclosed alphanumerics:
    each character alone maps exactly to its NFKC form (these are stable since Unicode 3)."""
    cm = t5_charsmap()
    ranges = [(0xA0, 0x250), (0x2150, 0x2190), (0x3380, 0x33E0), (0xFB00, 0xFB07), (0x2460, 0x24FF)]
    for lo, hi in ranges:
        for cp in range(lo, hi):
            ch = chr(cp)
            m = cm.longest_match(ch.encode(), 0)
            assert (ch if m is None else m[1].decode()) == unicodedata.normalize("NFKC", ch), hex(cp)


def test_built_table_longest_match_and_nul() -> None:
    cm = Charsmap.from_blob(build_charsmap({b"ab": b"X", b"abc": b"Y", b"b": b"", b"\xe2\x91\xa0": b"1"}))
    assert cm.longest_match(b"abd", 0) == (2, b"X")
    assert cm.longest_match(b"abc", 0) == (3, b"Y")
    assert cm.longest_match(b"abc", 1) == (1, b"")  # an empty replacement deletes
    assert cm.longest_match(b"a", 0) is None
    assert cm.longest_match(b"a\0bc", 0) is None  # a NUL ends the walk
    assert cm.longest_match("①".encode(), 0) == (3, b"1")


@given(
    st.dictionaries(
        st.binary(min_size=1, max_size=4).filter(lambda k: b"\0" not in k),
        st.binary(max_size=5).filter(lambda v: b"\0" not in v),
        max_size=30,
    )
)
@settings(max_examples=60, deadline=None)
def test_enumeration_returns_what_was_built(mapping: dict[bytes, bytes]) -> None:
    cm = Charsmap.from_blob(build_charsmap(mapping))
    assert cm.mapping() == mapping
    for key in mapping:
        data = key + b"\xff\xfe"
        longest = max((k for k in mapping if data.startswith(k)), key=len)
        assert cm.longest_match(data, 0) == (len(longest), mapping[longest])


def test_int8_array_is_accepted() -> None:
    blob = build_charsmap({b"x": b"y"})
    cm = parse_charsmap(np.frombuffer(blob, dtype=np.int8))
    assert cm is not None and cm.longest_match(b"x", 0) == (1, b"y")
    assert parse_charsmap(None) is None


@pytest.mark.parametrize(
    "blob,message",
    [
        (b"", "too small"),
        (b"\x01\x00", "too small"),
        ((8).to_bytes(4, "little") + b"\0" * 8, "does not leave room"),
        ((100).to_bytes(4, "little") + b"\0" * 8, "does not leave room"),
    ],
)
def test_bad_header_is_refused_at_parse(blob: bytes, message: str) -> None:
    with pytest.raises(VocabError, match=message):
        Charsmap.from_blob(blob)


def test_wrong_array_type_is_refused() -> None:
    with pytest.raises(VocabError, match="int8/uint8"):
        Charsmap.from_blob(np.zeros(8, dtype=np.int32))


def _blob(entries: list[int], pool: bytes) -> bytes:
    body = np.array(entries, dtype="<u4").tobytes()
    return len(body).to_bytes(4, "little") + body + pool


def test_out_of_bounds_index_raises_on_walk() -> None:
    # root BASE points far outside the 2-entry array: any non-NUL byte indexes out of bounds
    cm = Charsmap.from_blob(_blob([1000 << 10, 0], b"x\0"))
    assert cm.longest_match(b"\0", 0) is None  # a NUL stops before any lookup
    with pytest.raises(VocabError, match="out of bounds"):
        cm.longest_match(b"a", 0)
    assert cm.mapping() is None  # the fast table refuses too; callers then walk and raise


def test_unterminated_replacement_raises_on_walk() -> None:
    good = build_charsmap({b"a": b"zz"})
    bad = good[:-1]  # drop the final NUL of the only replacement
    cm = Charsmap.from_blob(bad)
    with pytest.raises(VocabError, match="not NUL-terminated"):
        cm.longest_match(b"a", 0)
    assert cm.longest_match(b"b", 0) is None  # only a walk that reaches it fails


def test_replacement_offset_out_of_pool_raises() -> None:
    entries = list(np.frombuffer(build_charsmap({b"a": b"q"})[4:-2], dtype="<u4"))
    value_slots = [i for i, e in enumerate(entries) if int(e) & 0x80000000]
    entries[value_slots[0]] = 0x80000000 | 5000
    cm = Charsmap.from_blob(_blob([int(e) for e in entries], b"q\0"))
    with pytest.raises(VocabError, match="out of bounds"):
        cm.longest_match(b"a", 0)
