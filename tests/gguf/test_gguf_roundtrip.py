"""Writer -> reader round trips (Hypothesis) and the vectorised string decoder vs the plain loop."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tui_tok.errors import GGUFFormatError
from tui_tok.gguf import (
    GGUFFile,
    GGUFValue,
    GGUFValueType,
    copy_metadata_only,
    read_gguf,
    strings as gguf_strings,
    write_gguf,
)
from tui_tok.gguf.reader import parse_gguf_bytes
from tui_tok.gguf.strings import read_string_array, read_string_array_text, read_strings_plain
from tui_tok.gguf.writer import encode_gguf

T = GGUFValueType
INT_BOUNDS = {
    T.UINT8: (0, 2**8 - 1), T.INT8: (-(2**7), 2**7 - 1), T.UINT16: (0, 2**16 - 1), T.INT16: (-(2**15), 2**15 - 1),
    T.UINT32: (0, 2**32 - 1), T.INT32: (-(2**31), 2**31 - 1), T.UINT64: (0, 2**64 - 1), T.INT64: (-(2**63), 2**63 - 1),
}  # fmt: skip
NUMERIC = [*INT_BOUNDS, T.FLOAT32, T.FLOAT64, T.BOOL]

# strings as the reader returns them: valid text, or any bytes kept with surrogateescape
texts = st.one_of(
    st.text(max_size=12),
    st.binary(max_size=12).map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.sampled_from(["", "\0", "a\0b", "\0" * 9, "x" * 300, "\u0120the", "<0x00>", "\U0001f600"]),
)


def scalar_of(t: GGUFValueType) -> st.SearchStrategy[Any]:
    if t in INT_BOUNDS:
        lo, hi = INT_BOUNDS[t]
        return st.integers(lo, hi)
    if t == T.FLOAT32:
        return st.floats(width=32, allow_nan=False)
    if t == T.FLOAT64:
        return st.floats(allow_nan=False)
    if t == T.BOOL:
        return st.booleans()
    return texts


@st.composite
def typed_array(draw: st.DrawFn, depth: int = 0) -> GGUFValue:
    choices = [*NUMERIC, T.STRING] + ([T.ARRAY] if depth < 3 else [])
    item = draw(st.sampled_from(choices))
    if item == T.ARRAY:
        return GGUFValue(T.ARRAY, draw(st.lists(typed_array(depth + 1), max_size=3)), T.ARRAY)
    values = draw(st.lists(scalar_of(item), max_size=8))
    if item == T.STRING:
        return GGUFValue(T.ARRAY, values, T.STRING)
    dtype = np.dtype(bool) if item == T.BOOL else item.numpy_dtype.newbyteorder("=")
    return GGUFValue(T.ARRAY, np.array(values, dtype=dtype), item)


@st.composite
def typed_value(draw: st.DrawFn) -> GGUFValue:
    t = draw(st.sampled_from([*NUMERIC, T.STRING, T.ARRAY]))
    if t == T.ARRAY:
        return draw(typed_array())
    return GGUFValue(t, draw(scalar_of(t)))


metadata = st.dictionaries(texts.filter(bool), typed_value(), max_size=8)
# (ggml type, block size): F32, F16, Q4_0, Q8_0, Q4_K, BF16
GGML = [(0, 1), (1, 1), (2, 32), (8, 32), (12, 256), (30, 1)]


@st.composite
def tensor_specs(draw: st.DrawFn) -> list[tuple[str, tuple[int, ...], int]]:
    names = draw(st.lists(st.text(min_size=1, max_size=10), max_size=4, unique=True))
    out = []
    for name in names:
        code, block = draw(st.sampled_from(GGML))
        rest = draw(st.lists(st.integers(0, 5), max_size=3))
        out.append((name, (block * draw(st.integers(0, 3)), *rest), code))
    return out


def same(expected: GGUFValue, field_type: GGUFValueType, item_type: Any, value: Any, layout: Any) -> bool:
    if field_type != expected.type:
        return False
    if expected.type != T.ARRAY:
        if expected.type == T.FLOAT32:
            return value == float(np.float32(expected.value))
        return type(value) is type(expected.value) and value == expected.value
    if item_type != expected.item_type:
        return False
    if item_type == T.STRING:
        return value == expected.value
    if item_type == T.ARRAY:
        return len(value) == len(expected.value) and all(
            same(e, T.ARRAY, sub_t, v, sub) for e, v, (sub_t, sub) in zip(expected.value, value, layout)
        )
    return value.dtype == expected.value.dtype and np.array_equal(value, expected.value)


def check_file(f: GGUFFile, meta: dict[str, GGUFValue]) -> None:
    assert list(f.fields) == list(meta)
    for key, exp in meta.items():
        fld = f.fields[key]
        assert same(exp, fld.type, fld.item_type, fld.value, fld.layout), (key, exp, fld)


@contextmanager
def fast_strings_always() -> Iterator[None]:
    """Send even tiny string arrays through the vectorised decoder."""
    with mock.patch.object(gguf_strings, "_FAST_MIN", 1):
        yield


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    meta=metadata, version=st.sampled_from([2, 3]), big_endian=st.booleans(), fast=st.booleans(), tensors=tensor_specs()
)
def test_roundtrip(
    meta: dict[str, GGUFValue],
    version: int,
    big_endian: bool,
    fast: bool,
    tensors: list[tuple[str, tuple[int, ...], int]],
) -> None:
    head, size = encode_gguf(meta, version=version, big_endian=big_endian, tensors=tensors)
    whole = head + bytes(size - len(head))
    if fast:
        with fast_strings_always():
            f = parse_gguf_bytes(whole)
    else:
        f = parse_gguf_bytes(whole)
    assert (f.version, f.big_endian, f.alignment) == (version, big_endian, 32)
    check_file(f, meta)
    assert [(t.name, t.shape, t.ggml_type) for t in f.tensors] == tensors
    assert all(t.offset % 32 == 0 and f.data_offset + t.offset + (t.nbytes or 0) <= size for t in f.tensors)
    if tensors:
        return
    data = head
    # copying the metadata keeps every type and value, byte for byte
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "in.gguf"
        src.write_bytes(data)
        out = copy_metadata_only(read_gguf(src), Path(d) / "out.gguf")
        assert out.read_bytes() == data


@settings(max_examples=80, deadline=None)
@given(
    strings=st.lists(
        st.one_of(texts, st.binary(min_size=250, max_size=700).map(lambda b: b.decode("utf-8", "surrogateescape"))),
        min_size=1,
        max_size=60,
    ),
    repeat=st.integers(1, 40),
    big_endian=st.booleans(),
    trailing=st.binary(max_size=40),
)
def test_fast_string_decoder_equals_plain_loop(
    strings: list[str], repeat: int, big_endian: bool, trailing: bytes
) -> None:
    """Long strings, NULs, 7-zero runs, invalid UTF-8, empty strings: same as one-by-one."""
    items = strings * repeat
    order = ">" if big_endian else "<"
    raw = b"".join(
        len(b).to_bytes(8, "big" if big_endian else "little") + b
        for b in (s.encode("utf-8", "surrogateescape") for s in items)
    )
    buf = b"\0" * 3 + raw + trailing
    del order

    def fail(msg: str, off: int) -> Any:
        raise GGUFFormatError(msg, offset=off)

    fast, end = read_string_array(buf, 3, len(items), len(buf), big_endian=big_endian, fail=fail)
    with fast_strings_always():
        fast1, end1 = read_string_array(buf, 3, len(items), len(buf), big_endian=big_endian, fail=fail)
    plain, end2 = read_strings_plain(buf, 3, len(items), len(buf), big_endian=big_endian, fail=fail)
    assert fast == fast1 == plain == items
    assert end == end1 == end2 == 3 + len(raw)
    joined = "\0" + "\0".join(items) + "\0"
    expected = joined if joined.count("\0") == len(items) + 1 else None
    for always in (False, True):
        with mock.patch.object(gguf_strings, "_FAST_MIN", 1 if always else gguf_strings._FAST_MIN):
            with_text, text, end3 = read_string_array_text(buf, 3, len(items), len(buf), big_endian=big_endian,
                                                           fail=fail)  # fmt: skip
        assert with_text == items and end3 == end and text == expected


def test_reader_keeps_the_text_of_the_string_arrays_asked_for() -> None:
    tokens = [f"t{i}\u0120" for i in range(2000)]
    merges = [f"t{i} t{i + 1}" for i in range(1500)]
    data, _ = encode_gguf({"tokenizer.ggml.tokens": tokens, "tokenizer.ggml.merges": merges, "nul": ["a\0", "b"]})
    f = parse_gguf_bytes(data, texts={"tokenizer.ggml.merges", "nul", "absent"})
    assert f["tokenizer.ggml.merges"] == merges and f["tokenizer.ggml.tokens"] == tokens
    assert f.fields["tokenizer.ggml.merges"].text == "\0" + "\0".join(merges) + "\0"
    assert f.fields["tokenizer.ggml.tokens"].text is None  # not asked for
    assert f.fields["nul"].text is None and f["nul"] == ["a\0", "b"]  # an entry holds the separator


def test_strings_with_seven_zero_bytes_inside() -> None:
    """False candidates (u64 < 256 inside a string) must not derail the chain."""
    items = ["ab\0\0\0\0\0\0\0\x05cd", "x" * 300, "", "\0" * 20, "tail"] * 200
    data, _ = encode_gguf({"tokenizer.ggml.tokens": items})
    assert parse_gguf_bytes(data)["tokenizer.ggml.tokens"] == items


def test_inference_rules() -> None:
    data, _ = encode_gguf(
        {
            "s": "x",
            "b": False,
            "u": 2**32 - 1,
            "big": 2**32,
            "neg": -1,
            "huge": 2**64 - 1,
            "f": 0.5,
            "ls": ["a"],
            "lb": [True],
            "li": [1, -1],
            "lf": [1.5],
            "ll": [[1], ["a"]],
            "empty": [],
            "np": np.array([1, 2], dtype=np.uint16),
            "npb": np.array([True]),
            "g": np.float64(2.5),
        }
    )
    f = parse_gguf_bytes(data)
    names = {k: fld.type_name for k, fld in f.fields.items()}
    assert names == {
        "s": "string",
        "b": "bool",
        "u": "u32",
        "big": "i64",
        "neg": "i64",
        "huge": "u64",
        "f": "f32",
        "ls": "[string; 1]",
        "lb": "[bool; 1]",
        "li": "[i64; 2]",
        "lf": "[f32; 1]",
        "ll": "[array; 2]",
        "empty": "[string; 0]",
        "np": "[u16; 2]",
        "npb": "[bool; 1]",
        "g": "f64",
    }


def test_writer_rejects_values_it_cannot_encode() -> None:
    with pytest.raises(OverflowError):
        encode_gguf({"x": GGUFValue(T.UINT8, 256)})
    with pytest.raises(OverflowError):
        encode_gguf({"x": GGUFValue(T.ARRAY, [1, 300], T.UINT8)})
    with pytest.raises(OverflowError):
        encode_gguf({"x": 2**64})
    with pytest.raises(TypeError):
        encode_gguf({"x": object()})
    with pytest.raises(TypeError):
        encode_gguf({"x": [1, "a"]})


def test_tensors_and_alignment(tmp_path: Path) -> None:
    p = write_gguf(
        tmp_path / "t.gguf", {"general.architecture": "x"}, alignment=64, tensors=[("a", (256, 3), 12), ("b", (7,), 0)]
    )
    f = read_gguf(p)
    assert f.alignment == 64 and f["general.alignment"] == 64
    assert [(t.name, t.shape, t.type_name, t.offset, t.nbytes) for t in f.tensors] == [
        ("a", (256, 3), "Q4_K", 0, 3 * 144),
        ("b", (7,), "F32", 448, 28),
    ]
    assert f.data_offset % 64 == 0 and f.tensor_bytes == 3 * 144 + 28
    assert f.file_size >= f.data_offset + 448 + 28


def test_write_is_atomic_and_copy_refuses_its_input(tmp_path: Path) -> None:
    p = write_gguf(tmp_path / "a.gguf", {"k": "v"})
    with pytest.raises(Exception, match="refusing to overwrite the input"):
        copy_metadata_only(read_gguf(p), p)
    with pytest.raises(Exception, match="refusing"):
        copy_metadata_only(read_gguf(p), tmp_path / "." / "a.gguf")
    assert read_gguf(p)["k"] == "v"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a.gguf"]  # no temporary left behind


@pytest.mark.parametrize(
    "items", [["y" * 300] * 3000, ["x" * 300, "a"] * 1000, ["z" * 70000] * 20], ids=["all-long", "alternating", "huge"]
)
def test_string_arrays_of_long_strings(items: list[str]) -> None:
    """Strings of 256+ bytes are never candidates: each is stepped over by hand, in one window."""
    data, _ = encode_gguf({"t": items, "after": 1})
    f = parse_gguf_bytes(data)
    assert f["t"] == items and f["after"] == 1
