"""Write GGUF files: vocab-only exports and test fixtures (hostile ones included).

``write_gguf`` writes metadata (types inferred or forced with ``GGUFValue``) and,
optionally, tensor index entries whose data is zero-filled: enough for any reader to
accept the file, never real weights. It writes atomically (a temporary file in the
same directory, then a rename). ``copy_metadata_only`` re-writes a file's metadata
with its original types and no tensors.

Type inference: str/bytes -> STRING, bool -> BOOL, int -> UINT32 if 0 <= v < 2**32,
INT64 if it fits, else UINT64; float -> FLOAT32; numpy scalars and arrays by dtype;
list/tuple of str -> ARRAY of STRING, of bool -> BOOL, of int -> like int (widened to
hold all), of float -> FLOAT32, of lists/arrays -> ARRAY of ARRAY; an empty list is an
ARRAY of STRING. Leaves out: validating what the caller asks for beyond what is needed
to encode it (tests write broken files on purpose).
"""

from __future__ import annotations

import os
import struct
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from tui_tok.errors import TuiTokError
from tui_tok.gguf.types import (
    GGML_TYPES,
    ArrayLayout,
    ByteOrder,
    GGUFField,
    GGUFFile,
    GGUFValue,
    GGUFValueType,
    TensorInfo,
)

_T = GGUFValueType
_DEFAULT_ALIGNMENT = 32

_NUMPY_TYPES: dict[np.dtype, GGUFValueType] = {
    np.dtype(np.uint8): _T.UINT8,
    np.dtype(np.int8): _T.INT8,
    np.dtype(np.uint16): _T.UINT16,
    np.dtype(np.int16): _T.INT16,
    np.dtype(np.uint32): _T.UINT32,
    np.dtype(np.int32): _T.INT32,
    np.dtype(np.float32): _T.FLOAT32,
    np.dtype(np.bool_): _T.BOOL,
    np.dtype(np.uint64): _T.UINT64,
    np.dtype(np.int64): _T.INT64,
    np.dtype(np.float64): _T.FLOAT64,
}

_INT_RANGES = {
    _T.UINT8: (0, 2**8),
    _T.INT8: (-(2**7), 2**7),
    _T.UINT16: (0, 2**16),
    _T.INT16: (-(2**15), 2**15),
    _T.UINT32: (0, 2**32),
    _T.INT32: (-(2**31), 2**31),
    _T.UINT64: (0, 2**64),
    _T.INT64: (-(2**63), 2**63),
}

_FORMATS = {
    _T.UINT8: "B", _T.INT8: "b", _T.UINT16: "H", _T.INT16: "h", _T.UINT32: "I", _T.INT32: "i",
    _T.FLOAT32: "f", _T.BOOL: "?", _T.UINT64: "Q", _T.INT64: "q", _T.FLOAT64: "d",
}  # fmt: skip


TensorSpec = TensorInfo | tuple[str, Sequence[int], int]


def write_gguf(
    path: str | os.PathLike[str],
    metadata: Mapping[str, Any],
    *,
    tensors: Iterable[TensorSpec] = (),
    version: int = 3,
    big_endian: bool = False,
    alignment: int | None = None,
) -> Path:
    """Write a GGUF file at ``path`` (atomically); returns the path.

    ``tensors`` are ``TensorInfo`` or ``(name, shape, ggml_type)``; offsets are laid out
    here and the data is zeros. ``alignment`` defaults to ``general.alignment`` when
    that is a valid u32 in ``metadata``, else 32; a non-default alignment missing from
    ``metadata`` is added as ``general.alignment``.

    >>> import tempfile, os; from tui_tok.gguf import read_gguf
    >>> p = write_gguf(os.path.join(tempfile.mkdtemp(), "t.gguf"), {"general.name": "x", "n": 7})
    >>> read_gguf(p).fields["n"].type_name, read_gguf(p)["general.name"]
    ('u32', 'x')
    """
    data, total_size = encode_gguf(
        metadata, tensors=tensors, version=version, big_endian=big_endian, alignment=alignment
    )
    return _write_atomic(Path(path), data, total_size)


def encode_gguf(
    metadata: Mapping[str, Any],
    *,
    tensors: Iterable[TensorSpec] = (),
    version: int = 3,
    big_endian: bool = False,
    alignment: int | None = None,
) -> tuple[bytes, int]:
    """The file's bytes up to the tensor data, and the full file size (data is zeros)."""
    order: ByteOrder = ">" if big_endian else "<"
    meta = dict(metadata)
    if alignment is None:
        alignment = _alignment_in(meta)
    elif alignment != _DEFAULT_ALIGNMENT and "general.alignment" not in meta:
        meta["general.alignment"] = GGUFValue(_T.UINT32, alignment)
    if alignment <= 0 or alignment & (alignment - 1):
        raise ValueError(f"alignment {alignment} is not a power of two")
    specs = [_tensor_spec(t) for t in tensors]
    out: list[bytes] = [b"GGUF", struct.pack(order + "IQQ", version, len(specs), len(meta))]
    for key, value in meta.items():
        v = value if isinstance(value, GGUFValue) else infer_value(value)
        out.append(_string(key, order))
        out.append(struct.pack(order + "I", v.type))
        _encode(out, v, order, depth=0)
    offset = 0
    layout: list[int] = []
    for name, shape, ggml_type, nbytes in specs:
        out.append(_string(name, order))
        out.append(struct.pack(f"{order}I{len(shape)}QIQ", len(shape), *shape, ggml_type, offset))
        layout.append(offset)
        offset += -(-nbytes // alignment) * alignment
    head = b"".join(out)
    if not specs:
        return head, len(head)
    data_offset = -(-len(head) // alignment) * alignment
    head += b"\0" * (data_offset - len(head))
    return head, data_offset + offset


def encode_kv(key: str, value: Any, *, big_endian: bool = False) -> bytes:
    """One metadata key/value pair as the file stores it (``value`` typed as ``write_gguf`` types it)."""
    order: ByteOrder = ">" if big_endian else "<"
    v = value if isinstance(value, GGUFValue) else infer_value(value)
    out = [_string(key, order), struct.pack(order + "I", v.type)]
    _encode(out, v, order, depth=0)
    return b"".join(out)


def infer_value(value: Any) -> GGUFValue:
    """The ``GGUFValue`` a plain Python/numpy value is written as (see module docstring)."""
    if isinstance(value, GGUFValue):
        return value
    if isinstance(value, (str, bytes, bytearray)):
        return GGUFValue(_T.STRING, value)
    if isinstance(value, (bool, np.bool_)):
        return GGUFValue(_T.BOOL, bool(value))
    if isinstance(value, np.generic):
        t = _NUMPY_TYPES.get(value.dtype.newbyteorder("="))
        if t is None:
            raise TypeError(f"cannot write numpy {value.dtype} as GGUF")
        return GGUFValue(t, value.item())
    if isinstance(value, int):
        return GGUFValue(_int_type([value]), value)
    if isinstance(value, float):
        return GGUFValue(_T.FLOAT32, value)
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise TypeError(f"only 1-d arrays can be written, not shape {value.shape}")
        t = _NUMPY_TYPES.get(value.dtype.newbyteorder("="))
        if t is None:
            raise TypeError(f"cannot write numpy {value.dtype} arrays as GGUF")
        return GGUFValue(_T.ARRAY, value, t)
    if isinstance(value, (list, tuple)):
        return GGUFValue(_T.ARRAY, value, _item_type(value))
    raise TypeError(f"cannot infer a GGUF type for {type(value).__name__}")


def _item_type(items: Sequence[Any]) -> GGUFValueType:
    if not items or all(isinstance(x, (str, bytes, bytearray)) for x in items):
        return _T.STRING
    if all(isinstance(x, (bool, np.bool_)) for x in items):
        return _T.BOOL
    if all(isinstance(x, int) and not isinstance(x, bool) for x in items):
        return _int_type(items)
    if all(isinstance(x, float) for x in items):
        return _T.FLOAT32
    if all(
        isinstance(x, (list, tuple, np.ndarray)) or (isinstance(x, GGUFValue) and x.type == _T.ARRAY) for x in items
    ):
        return _T.ARRAY
    raise TypeError(
        "cannot infer one GGUF item type for a list mixing " + ", ".join(sorted({type(x).__name__ for x in items}))
    )


def _int_type(values: Sequence[int]) -> GGUFValueType:
    lo, hi = min(values), max(values)
    for t in (_T.UINT32, _T.INT64, _T.UINT64):
        a, b = _INT_RANGES[t]
        if a <= lo and hi < b:
            return t
    raise OverflowError(f"integer {lo if lo < 0 else hi} does not fit in 64 bits")


def _string(s: str | bytes | bytearray, order: ByteOrder) -> bytes:
    b = s.encode("utf-8", "surrogateescape") if isinstance(s, str) else bytes(s)
    return struct.pack(order + "Q", len(b)) + b


def _encode(out: list[bytes], v: GGUFValue, order: ByteOrder, depth: int) -> None:
    t = GGUFValueType(v.type)
    if t == _T.STRING:
        out.append(_string(v.value, order))
    elif t == _T.ARRAY:
        _encode_array(out, v, order, depth)
    else:
        value = v.value
        if t in _INT_RANGES:
            a, b = _INT_RANGES[t]
            if not a <= int(value) < b:
                raise OverflowError(f"{value} does not fit in {t.short_name}")
            value = int(value)
        out.append(struct.pack(order + _FORMATS[t], value))


def _encode_array(out: list[bytes], v: GGUFValue, order: ByteOrder, depth: int) -> None:
    items = v.value
    item_type = v.item_type if v.item_type is not None else infer_value(items).item_type
    assert item_type is not None
    item_type = GGUFValueType(item_type)
    out.append(struct.pack(order + "IQ", item_type, len(items)))
    if item_type == _T.STRING:
        pack = struct.Struct(order + "Q").pack
        encoded = [s.encode("utf-8", "surrogateescape") if isinstance(s, str) else bytes(s) for s in items]
        out.append(b"".join(chain.from_iterable(zip(map(pack, map(len, encoded)), encoded))))
    elif item_type == _T.ARRAY:
        for inner in items:
            iv = inner if isinstance(inner, GGUFValue) else infer_value(inner)
            if iv.type != _T.ARRAY:
                raise TypeError(f"an array of arrays holds a {iv.type.name}")
            _encode_array(out, iv, order, depth + 1)
    else:
        dtype = item_type.numpy_dtype
        assert dtype is not None
        src = np.asarray(items)
        if item_type == _T.BOOL:
            arr = src.astype(bool).astype(np.uint8)
        else:
            arr = src.astype(dtype.newbyteorder(order))
            if src.size and item_type in _INT_RANGES and not np.array_equal(arr, src):
                raise OverflowError(f"array values do not fit in {item_type.short_name}")
        out.append(arr.tobytes())


def _alignment_in(meta: Mapping[str, Any]) -> int:
    v = meta.get("general.alignment")
    if isinstance(v, GGUFValue):
        v = v.value if v.type == _T.UINT32 else None
    if (
        isinstance(v, (int, np.integer))
        and not isinstance(v, bool)
        and 0 < int(v) < 2**32
        and not int(v) & (int(v) - 1)
    ):
        return int(v)
    return _DEFAULT_ALIGNMENT


def _tensor_spec(t: TensorSpec) -> tuple[str, tuple[int, ...], int, int]:
    shape: Sequence[int]
    if isinstance(t, TensorInfo):
        name, shape, ggml_type = t.name, t.shape, t.ggml_type
    else:
        name, shape, ggml_type = t
    info = GGML_TYPES.get(int(ggml_type))
    if info is None:
        raise ValueError(f"unknown ggml type {ggml_type} for tensor {name!r}")
    n = 1
    for d in shape:
        n *= int(d)
    if shape and int(shape[0]) % info.block_size:
        raise ValueError(
            f"tensor {name!r}: row of {shape[0]} is not a multiple of {info.name}'s block {info.block_size}"
        )
    return name, tuple(int(d) for d in shape), int(ggml_type), n // info.block_size * info.type_size


def _write_atomic(path: Path, head: bytes, total_size: int) -> Path:
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(head)
            if total_size > len(head):
                fh.truncate(total_size)  # tensor data: zeros (sparse where the filesystem can)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def field_value(field: GGUFField) -> GGUFValue:
    """A read field as a ``GGUFValue`` with its original type (arrays of arrays included)."""
    if field.type != _T.ARRAY:
        return GGUFValue(field.type, field.value)
    return _typed_array(field.item_type, field.value, field.layout)


def _typed_array(item_type: GGUFValueType | None, value: Any, layout: ArrayLayout | None) -> GGUFValue:
    if item_type == _T.ARRAY and layout is not None:
        inner = [_typed_array(t, v, sub) for (t, sub), v in zip(layout, value)]
        return GGUFValue(_T.ARRAY, inner, _T.ARRAY)
    return GGUFValue(_T.ARRAY, value, item_type)


def copy_metadata_only(src: GGUFFile, out_path: str | os.PathLike[str]) -> Path:
    """Write ``src``'s metadata (every key, original types and order) with no tensors.

    Refuses to write over ``src`` itself.
    """
    out = Path(out_path)
    if _same_file(Path(src.path), out):
        raise TuiTokError(f"{out}: refusing to overwrite the input file; choose another output path")
    meta = {key: field_value(f) for key, f in src.fields.items()}
    return write_gguf(out, meta, version=src.version, big_endian=src.big_endian, alignment=src.alignment)


def _same_file(a: Path, b: Path) -> bool:
    try:
        if b.exists() and a.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()
