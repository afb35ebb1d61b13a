"""What GGUF metadata may claim is capped, and a claim is checked before a byte of it is asked for:
a size that is itself a claim (a server's Content-Range, a sparse file) must not turn a lying length
into a 1 TiB read or a 20 GiB buffer. The caps leave room for every real vocabulary."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from gguf_bytes import T, array, file, gstr, header, kv, kv_str, u64

from support import vocab_files
from tui_tok.errors import GGUFFormatError
from tui_tok.gguf import read_gguf, reader as gguf_reader, strings as gguf_strings
from tui_tok.gguf.reader import (
    MAX_ARRAY_ITEMS,
    MAX_HEADER_BYTES,
    MAX_KEYS,
    MAX_NESTED_ARRAYS,
    MAX_STRING_BYTES,
    parse_source,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sources"))
from fake_stores import limited_run, sparse_liar


class ClaimingSource:
    """A ``ByteSource`` claiming ``size`` bytes (as a server's Content-Range can): ``data``, then zeros
    for as much as is asked, up to 64 MiB (more is a failure: what a 1 TiB range request would be)."""

    def __init__(self, data: bytes, size: int = 10**13) -> None:
        self.data, self.size, self.name = data, size, "claims.gguf"
        self.first_read = 4096
        self.largest = 0

    def prefix(self, n: int) -> bytes:
        self.largest = max(self.largest, n)
        assert n <= 64 << 20, f"asked for {n} bytes"
        return self.data[:n] + bytes(max(0, n - len(self.data)))

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("n_kv", "payload", "match"),
    [
        (
            2,
            kv_str("general.architecture", "x") + kv("general.name", T.STRING, u64(2**40) + b"abcd"),
            f"string length {2**40} is more than the {MAX_STRING_BYTES} bytes a string may have",
        ),
        (1, u64(2**40) + b"key", f"length {2**40} is more than"),  # a key's length
        (1, kv("t", T.ARRAY, array(T.UINT8, 2**33, b"\0" * 64)), f"count {2**33} is more than the {MAX_ARRAY_ITEMS}"),
        (1, kv("t", T.ARRAY, array(T.STRING, 2**30, b"\0" * 64)), f"count {2**30} is more than"),
        (
            1,
            kv("t", T.ARRAY, array(T.STRING, 600, u64(2**40) + b"\0" * 64)),
            "string length 1099511627776 is more than",
        ),
    ],
    ids=["string", "key", "u8-array", "string-array", "string-in-array"],
)
def test_a_claimed_size_does_not_make_a_lie_big(n_kv: int, payload: bytes, match: str) -> None:
    src = ClaimingSource(header(0, n_kv) + payload)
    t0 = time.perf_counter()
    with pytest.raises(GGUFFormatError, match=match) as info:
        parse_source(src)
    assert time.perf_counter() - t0 < 2.0
    assert src.largest <= 1 << 20, f"asked for {src.largest} bytes"
    assert str(info.value).startswith("claims.gguf: offset ") and "\n" not in str(info.value)


def test_header_counts_are_capped() -> None:
    src = ClaimingSource(header(0, MAX_KEYS + 1) + b"\0" * 64)
    with pytest.raises(GGUFFormatError, match=f"at most {MAX_KEYS}"):
        parse_source(src)


def test_total_metadata_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many keys each under the per-array cap still stop at the total (the cap made small here)."""
    monkeypatch.setattr(gguf_reader, "MAX_HEADER_BYTES", 1 << 20)
    monkeypatch.setattr(gguf_strings, "MAX_HEADER_BYTES", 1 << 20)
    blob = array(T.UINT8, 300_000, b"\1" * 300_000)
    p = tmp_path / "many.gguf"
    p.write_bytes(file([kv(f"k{i}", T.ARRAY, blob) for i in range(3)]))
    assert read_gguf(p)["k2"].size == 300_000
    p.write_bytes(file([kv(f"k{i}", T.ARRAY, blob) for i in range(4)]))
    with pytest.raises(GGUFFormatError, match="past the 1048576 bytes the metadata and tensor index may take"):
        read_gguf(p)
    strings = array(T.STRING, 1000, b"".join(gstr(b"x" * 300) for _ in range(1000)))
    p.write_bytes(file([kv(f"s{i}", T.ARRAY, strings) for i in range(4)]))
    with pytest.raises(GGUFFormatError, match="past the 1048576 bytes"):
        read_gguf(p)


def test_arrays_inside_arrays_are_capped(tmp_path: Path) -> None:
    inner = array(T.UINT8, 0)
    n = MAX_NESTED_ARRAYS // 2 + 1
    p = tmp_path / "nested.gguf"
    p.write_bytes(
        file([kv("a", T.ARRAY, array(T.ARRAY, n, inner * n)), kv("b", T.ARRAY, array(T.ARRAY, n, inner * n))])
    )
    with pytest.raises(GGUFFormatError, match=f"more than {MAX_NESTED_ARRAYS} arrays inside arrays") as info:
        read_gguf(p)
    assert info.value.key == "b"


def test_caps_leave_room_for_every_real_vocab() -> None:
    """Each real file sits an order of magnitude under each cap (Gemma 4: 262k tokens, 515k merges)."""
    for vf in vocab_files():
        f = read_gguf(vf.path)
        assert f.data_offset * 10 < MAX_HEADER_BYTES, vf.name
        for field in f.fields.values():
            if field.count is not None:
                assert field.count * 8 < MAX_ARRAY_ITEMS, (vf.name, field.key)
            if isinstance(field.value, str):
                assert len(field.value) * 100 < MAX_STRING_BYTES, (vf.name, field.key)
        tokens = f.fields.get("tokenizer.ggml.tokens")
        if tokens is not None and isinstance(tokens.value, list):
            assert max(map(len, tokens.value)) * 1000 < MAX_STRING_BYTES


def test_a_run_of_zeros_costs_the_plain_loop() -> None:
    """512k empty strings (4 MiB of zero bytes): every offset is a candidate for the vectorised scan,
    which must then give way to the plain loop (about 1.5 µs a string) instead of stepping each by
    hand (ten times that): decoded and skipped (``--list``) alike."""
    count = 1 << 19
    data = header(0, 1) + kv("z", T.ARRAY, array(T.STRING, count, bytes(8 * count)))
    t0 = time.perf_counter()
    f = gguf_reader.parse_gguf_bytes(data)
    assert len(f["z"]) == count and f["z"][-1] == ""
    skipped = gguf_strings.skip_string_array(
        data, 24 + 8 + 1 + 4 + 12, count, len(data), big_endian=False, fail=lambda m, o: pytest.fail(m)
    )
    assert skipped == len(data)
    assert time.perf_counter() - t0 < 4.0


@pytest.mark.skipif(not hasattr(os, "getuid") or sys.platform != "linux", reason="needs RLIMIT_AS and sparse files")
def test_sparse_file_claiming_a_20_gib_string(tmp_path: Path) -> None:
    """21 GiB on disk (a hole), a 20 GiB ``general.name``: refused before any buffer is made for it.
    Run with the address space capped at 3 GiB, so a regression is a MemoryError, not 20 GiB taken."""
    p = sparse_liar(tmp_path / "liar.gguf")
    if p is None:
        pytest.skip("this filesystem does not make sparse files")
    t0 = time.perf_counter()
    r = limited_run(["info", str(p)], dict(os.environ))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and str(p) in r.stderr
    assert f"string length {20 * 1024**3} is more than the {MAX_STRING_BYTES} bytes" in r.stderr
    assert time.perf_counter() - t0 < 30
