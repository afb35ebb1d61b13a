"""The bulk tensor-index path (tensor_index.py) against the checked one-by-one path: the same
entries for valid files of every shape rank and type, the same error for a bad entry anywhere."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest

import tui_tok.gguf.reader as reader
from tui_tok.errors import GGUFFormatError
from tui_tok.gguf import GGML_TYPES, read_gguf, write_gguf


def _checked_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "fast_tensor_infos", lambda *a: ([], [], a[1]))
    monkeypatch.setattr(reader, "layout_is_valid", lambda *a: False)


def _model(path: Path, n: int, seed: int = 0) -> Path:
    rng = random.Random(seed)
    tensors = []
    for k in range(n):
        info = GGML_TYPES[rng.choice(sorted(GGML_TYPES))]
        nd = rng.randint(1, 4)
        shape = [info.block_size * rng.randint(1, 3)] + [rng.randint(1, 3) for _ in range(nd - 1)]
        tensors.append((f"blk.{k}.w" + "é" * (k % 3), shape, info.code))
    return write_gguf(path, {"general.architecture": "x"}, tensors=tensors)


def test_bulk_path_equals_checked_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _model(tmp_path / "m.gguf", 3000)
    fast = read_gguf(p)
    assert len(fast.tensors) == 3000 and {len(t.shape) for t in fast.tensors} == {1, 2, 3, 4}
    _checked_only(monkeypatch)
    slow = read_gguf(p)
    assert fast.tensors == slow.tensors and fast.data_offset == slow.data_offset
    assert all(type(t.ggml_type) is int and type(t.shape[0]) is int for t in fast.tensors)


def _entry(data: bytes, name: str) -> int:
    needle = struct.pack("<Q", len(name.encode())) + name.encode()
    at = data.find(needle)
    assert at > 0
    return at


def _corrupt(data: bytearray, kind: str) -> None:
    """Break tensor 702's entry (its name is ``blk.702.w``, as long as ``blk.699.w``)."""
    at = _entry(bytes(data), "blk.702.w")
    dims_at = at + 8 + 9 + 4
    nd = struct.unpack_from("<I", data, dims_at - 4)[0]
    if kind == "duplicate":
        data[at + 8 + 4 : at + 8 + 7] = b"699"
    elif kind == "dims":
        struct.pack_into("<I", data, dims_at - 4, 9)
    elif kind == "row":
        struct.pack_into("<Q", data, dims_at, 33)
        struct.pack_into("<I", data, dims_at + 8 * nd, 2)  # Q4_0: rows of 32
    elif kind == "offset":
        struct.pack_into("<Q", data, dims_at + 8 * nd + 4, 64 * 1024 * 1024 + 1)


@pytest.mark.parametrize("kind", ["duplicate", "dims", "row", "offset"])
def test_bad_entry_gives_the_checked_error(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _model(tmp_path / "m.gguf", 1000, seed=1)
    data = bytearray(p.read_bytes())
    _corrupt(data, kind)
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(bytes(data))
    with pytest.raises(GGUFFormatError) as fast:
        read_gguf(bad)
    _checked_only(monkeypatch)
    with pytest.raises(GGUFFormatError) as slow:
        read_gguf(bad)
    assert str(fast.value) == str(slow.value)
    assert "blk.702.w" in str(fast.value) or "blk.699.w" in str(fast.value), str(fast.value)
