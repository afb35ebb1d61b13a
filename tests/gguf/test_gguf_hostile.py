"""Crafted broken GGUF files: each must fail at once with a GGUFFormatError saying where.

A lying count or length must never allocate or loop: the slowest case here is bounded
by a timer (generous, for a loaded CI machine) so a regression to "read then check"
shows up as a failure, not as a hung suite.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from gguf_bytes import (
    T,
    array,
    file,
    header,
    kv,
    kv_str,
    kv_u32,
    string_array,
    tensor_info,
    u32,
    u64,
)

from tui_tok.errors import GGUFFormatError, TuiTokError
from tui_tok.gguf import GGUFOpenError, GGUFValue, GGUFValueType, read_gguf, write_gguf
from tui_tok.gguf.reader import parse_gguf_bytes


def fails(data: bytes, tmp_path: Path, *, match: str | None = None) -> GGUFFormatError:
    """Write ``data``, read it, return the error (and check it came quickly)."""
    p = tmp_path / "bad.gguf"
    p.write_bytes(data)
    t0 = time.perf_counter()
    with pytest.raises(GGUFFormatError) as info:
        read_gguf(p)
    assert time.perf_counter() - t0 < 2.0
    err = info.value
    assert err.path == str(p)
    assert err.offset is not None and 0 <= err.offset <= len(data)
    if match is not None:
        assert match in err.message, err.message
    return err


GOOD_KVS = [kv_str("general.architecture", "llama"), kv_u32("general.alignment", 32)]


def test_good_baseline_reads(tmp_path: Path) -> None:
    p = tmp_path / "ok.gguf"
    p.write_bytes(file(GOOD_KVS))
    f = read_gguf(p)
    assert f["general.architecture"] == "llama" and f.alignment == 32


@pytest.mark.parametrize("magic", [b"GGUX", b"gguf", b"\0\0\0\0", b"FUGG"])
def test_bad_magic(tmp_path: Path, magic: bytes) -> None:
    err = fails(magic + file(GOOD_KVS)[4:], tmp_path, match="bad magic")
    assert err.offset == 0


@pytest.mark.parametrize("version", [0, 1, 4, 5, 0x7FFF])
def test_unsupported_versions(tmp_path: Path, version: int) -> None:
    err = fails(file(GOOD_KVS, version=version), tmp_path, match=f"unsupported GGUF version {version}")
    assert err.offset == 4


@pytest.mark.parametrize("version", [1, 4])
def test_unsupported_versions_big_endian(tmp_path: Path, version: int) -> None:
    data = b"GGUF" + u32(version, ">") + u64(0, ">") + u64(0, ">")
    fails(data, tmp_path, match=f"unsupported GGUF version {version}")


def test_every_prefix_of_the_header_fails(tmp_path: Path) -> None:
    data = file(GOOD_KVS)
    for n in range(24):
        with pytest.raises(GGUFFormatError):
            parse_gguf_bytes(data[:n])


def _small_valid_file(tmp_path: Path) -> bytes:
    meta = {
        "general.architecture": "llama",
        "general.alignment": GGUFValue(GGUFValueType.UINT32, 64),
        "tokenizer.ggml.tokens": ["a", "bb", "\u00e9", ""],
        "tokenizer.ggml.scores": np.array([0.5, -1.0, 2.0, 0.0], dtype=np.float32),
        "nested": [[1, 2], ["x"]],
        "flag": True,
    }
    p = write_gguf(tmp_path / "small.gguf", meta, tensors=[("w", (32, 2), 2), ("b", (4,), 0)])
    return p.read_bytes()


def test_every_truncation_of_a_small_file_fails(tmp_path: Path) -> None:
    """Cut anywhere (header, each key, each value, tensor index, padding, data): an error, never a file."""
    data = _small_valid_file(tmp_path)
    full = parse_gguf_bytes(data)
    needed = max(full.data_offset + t.offset + (t.nbytes or 0) for t in full.tensors)
    assert needed < len(data)  # the writer pads after the last tensor, like gguf-py
    for n in range(needed):
        with pytest.raises(GGUFFormatError):
            parse_gguf_bytes(data[:n], path="cut.gguf")
    for n in range(needed, len(data)):  # only trailing padding is missing: still a valid file
        assert parse_gguf_bytes(data[:n]).tensors == full.tensors


def test_truncated_error_names_key(tmp_path: Path) -> None:
    data = file([kv_str("general.name", "a fairly long name")])
    err = fails(data[:-5], tmp_path, match="exceeds the")
    assert err.key == "general.name"


def test_string_length_2_63(tmp_path: Path) -> None:
    bad = kv("general.name", T.STRING, u64(2**63) + b"abcd")
    err = fails(
        file([kv_str("general.architecture", "x"), bad]),
        tmp_path,
        match="string length 9223372036854775808 exceeds the 4 bytes left in the file",
    )
    assert err.key == "general.name"


def test_key_length_2_63(tmp_path: Path) -> None:
    data = header(0, 1) + u64(2**63) + b"key" + b"\0" * 9
    err = fails(data, tmp_path, match="length 9223372036854775808 exceeds the 12 bytes left")
    assert err.offset == 24 and err.key is None


@pytest.mark.parametrize("item_type", [T.UINT8, T.STRING, T.ARRAY, T.FLOAT64, T.BOOL])
def test_array_count_2_62(tmp_path: Path, item_type: int) -> None:
    data = file([kv("big", T.ARRAY, array(item_type, 2**62, b"\0" * 64))])
    err = fails(data, tmp_path, match="count 4611686018427387904")
    assert err.key == "big"


def test_lying_length_inside_a_long_string_array(tmp_path: Path) -> None:
    """The vectorised path must hand a lying length to the checked loop, not read past it."""
    strings = [f"tok{i}".encode() for i in range(3000)]
    good = string_array(strings)
    # lie in the 2000th string: a length just past the end of the file
    pos = 12 + sum(8 + len(s) for s in strings[:2000])
    left = len(good) - pos - 8
    for lie in (left + 1, 200 + left, 2**40, 2**63):
        bad = good[:pos] + u64(lie) + good[pos + 8 :]
        err = fails(file([kv("tokenizer.ggml.tokens", T.ARRAY, bad)]), tmp_path, match=f"string length {lie}")
        assert err.key == "tokenizer.ggml.tokens"


@pytest.mark.parametrize("code", [13, 255, 2**32 - 1])
def test_unknown_value_type(tmp_path: Path, code: int) -> None:
    err = fails(file([kv("k", code, b"\0" * 16)]), tmp_path, match=f"unknown value type {code}")
    assert err.key == "k"


def test_unknown_array_item_type(tmp_path: Path) -> None:
    err = fails(file([kv("k", T.ARRAY, array(99, 1, b"\0" * 16))]), tmp_path, match="unknown array item type 99")
    assert err.key == "k"


def _nested(depth: int) -> bytes:
    inner = array(T.UINT8, 2, b"\1\2")
    for _ in range(depth - 1):
        inner = array(T.ARRAY, 1, inner)
    return inner


def test_nesting_depth(tmp_path: Path) -> None:
    p = tmp_path / "ok.gguf"
    p.write_bytes(file([kv("deep", T.ARRAY, _nested(8))]))
    value = read_gguf(p)["deep"]
    for _ in range(7):
        value = value[0]
    assert value.tolist() == [1, 2]
    err = fails(file([kv("deep", T.ARRAY, _nested(9))]), tmp_path, match="nested more than 8 deep")
    assert err.key == "deep"
    fails(file([kv("deep", T.ARRAY, _nested(5000))]), tmp_path, match="nested more than 8 deep")


def test_duplicate_keys(tmp_path: Path) -> None:
    err = fails(file([kv_u32("a", 1), kv_u32("b", 2), kv_u32("a", 3)]), tmp_path, match="duplicate key")
    assert err.key == "a"


def test_empty_key(tmp_path: Path) -> None:
    fails(file([kv_u32("", 1)]), tmp_path, match="key 0 is empty")


@pytest.mark.parametrize("value", [0, 3, 48, 2**31 + 1])
def test_bad_alignment(tmp_path: Path, value: int) -> None:
    err = fails(file([kv_u32("general.alignment", value)]), tmp_path, match=f"alignment {value} is not a power of two")
    assert err.key == "general.alignment"


def test_alignment_of_wrong_type(tmp_path: Path) -> None:
    err = fails(file([kv("general.alignment", T.UINT64, u64(32))]), tmp_path, match="must be u32")
    assert err.key == "general.alignment"


@pytest.mark.parametrize("n_kv,n_tensors", [(2**62, 0), (1000, 0), (0, 2**62), (2, 10**6), (2**64 - 1, 2**64 - 1)])
def test_header_counts_lie(tmp_path: Path, n_kv: int, n_tensors: int) -> None:
    err = fails(file(GOOD_KVS, n_kv=n_kv, n_tensors=n_tensors), tmp_path, match="header claims")
    assert err.offset == 8


def test_tensor_count_lies_by_one(tmp_path: Path) -> None:
    t = tensor_info("w", (32,), 0, 0)
    fails(file(GOOD_KVS, [t], n_tensors=2, tail=b"\1" * 4096), tmp_path, match="tensor 1 name")
    # zeros parse as a second, empty-named scalar tensor: caught by llama.cpp's offset rule
    fails(file(GOOD_KVS, [t], n_tensors=2, tail=b"\0" * 4096), tmp_path, match="expected 128")


def test_kv_count_lies_by_one(tmp_path: Path) -> None:
    fails(file(GOOD_KVS, n_kv=3, tail=b"\0" * 64), tmp_path)


@pytest.mark.parametrize(
    "info,match",
    [
        (tensor_info("w", (1, 2, 3, 4, 5), 0, 0), "5 dimensions"),
        (tensor_info("w", (2**63,), 0, 0), "negative dimension"),
        (tensor_info("w", (2**40, 2**40), 0, 0), "more than 2^63 elements"),
        (tensor_info("w", (33,), 2, 0), "not a multiple of its block size 32"),
        (tensor_info("w", (8,), 0, 5), "not a multiple of the alignment 32"),
        (tensor_info("w", (1024,), 0, 0), "ends past the end of the file"),
        (tensor_info("w", (8,), 0, 2**63), "is 9223372036854775808, expected 0"),
    ],
)
def test_bad_tensor_index(tmp_path: Path, info: bytes, match: str) -> None:
    fails(file(GOOD_KVS, [info], tail=b"\0" * 96), tmp_path, match=match)


def test_duplicate_tensor_name(tmp_path: Path) -> None:
    infos = [tensor_info("w", (8,), 0, 0), tensor_info("w", (8,), 0, 32)]
    fails(file(GOOD_KVS, infos, tail=b"\0" * 128), tmp_path, match="duplicate tensor name 'w'")


def test_tensor_data_out_of_order(tmp_path: Path) -> None:
    infos = [tensor_info("a", (8,), 0, 32), tensor_info("b", (8,), 0, 0)]
    fails(file(GOOD_KVS, infos, tail=b"\0" * 128), tmp_path, match="tensor 'a' data offset is 32, expected 0")


def test_unknown_ggml_type_is_kept_not_fatal(tmp_path: Path) -> None:
    """A newer quantisation type must not stop anyone from exploring the tokenizer."""
    p = tmp_path / "t.gguf"
    p.write_bytes(file(GOOD_KVS, [tensor_info("w", (8,), 4, 0)]))
    t = read_gguf(p).tensors[0]
    assert t.type_name == "unknown(4)" and t.nbytes is None


def test_open_errors_are_one_line(tmp_path: Path) -> None:
    for path, match in [(tmp_path, "is a directory"), (tmp_path / "missing.gguf", "no such file")]:
        with pytest.raises(GGUFOpenError) as info:
            read_gguf(path)
        assert isinstance(info.value, TuiTokError) and match in str(info.value) and "\n" not in str(info.value)
        assert info.value.exit_code == 2
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    fails(b"", tmp_path, match="empty")


def test_open_error_lives_in_errors_and_stays_importable_from_gguf() -> None:
    import tui_tok.errors
    import tui_tok.gguf.reader

    assert GGUFOpenError is tui_tok.errors.GGUFOpenError is tui_tok.gguf.reader.GGUFOpenError


def test_reader_never_writes(tmp_path: Path) -> None:
    p = tmp_path / "ro.gguf"
    p.write_bytes(file(GOOD_KVS))
    p.chmod(0o444)
    before = p.read_bytes(), p.stat().st_mtime_ns
    read_gguf(p)
    assert (p.read_bytes(), p.stat().st_mtime_ns) == before
