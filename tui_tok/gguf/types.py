"""The data a GGUF file holds, as plain frozen values.

``GGUFValueType`` is the format's value-type code, ``GGMLType`` the tensor element
type with its block layout (so a tensor's byte size can be computed without
reading its data). ``GGUFField``, ``TensorInfo`` and ``GGUFFile`` are what
``read_gguf`` returns; ``GGUFValue`` is how a caller forces a type when writing.

Leaves out: parsing (reader.py), encoding (writer.py), and any knowledge of what
the keys mean (that is the tokenizer's business).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np

ByteOrder = Literal["<", ">"]
"""A ``struct`` / numpy byte-order prefix: little- or big-endian."""


class GGUFValueType(enum.IntEnum):
    """Value-type codes of GGUF metadata (gguf.h ``enum gguf_type``)."""

    UINT8 = 0
    INT8 = 1
    UINT16 = 2
    INT16 = 3
    UINT32 = 4
    INT32 = 5
    FLOAT32 = 6
    BOOL = 7
    STRING = 8
    ARRAY = 9
    UINT64 = 10
    INT64 = 11
    FLOAT64 = 12

    @property
    def short_name(self) -> str:
        """Rust-like short name shown by the metadata browser: ``u32``, ``f32``, ``string``.

        >>> GGUFValueType.UINT32.short_name
        'u32'
        """
        return _SHORT_NAMES[self]

    @property
    def numpy_dtype(self) -> np.dtype | None:
        """Little-endian numpy dtype of a fixed-size type; None for STRING and ARRAY."""
        code = _DTYPE_CODES.get(self)
        return None if code is None else np.dtype(code)

    @property
    def is_numeric(self) -> bool:
        """Fixed-size scalar types (everything except STRING and ARRAY)."""
        return self in _DTYPE_CODES


_SHORT_NAMES = {
    GGUFValueType.UINT8: "u8",
    GGUFValueType.INT8: "i8",
    GGUFValueType.UINT16: "u16",
    GGUFValueType.INT16: "i16",
    GGUFValueType.UINT32: "u32",
    GGUFValueType.INT32: "i32",
    GGUFValueType.FLOAT32: "f32",
    GGUFValueType.BOOL: "bool",
    GGUFValueType.STRING: "string",
    GGUFValueType.ARRAY: "array",
    GGUFValueType.UINT64: "u64",
    GGUFValueType.INT64: "i64",
    GGUFValueType.FLOAT64: "f64",
}

# little-endian numpy codes; BOOL is read as one byte and converted to numpy bool
_DTYPE_CODES = {
    GGUFValueType.UINT8: "<u1",
    GGUFValueType.INT8: "<i1",
    GGUFValueType.UINT16: "<u2",
    GGUFValueType.INT16: "<i2",
    GGUFValueType.UINT32: "<u4",
    GGUFValueType.INT32: "<i4",
    GGUFValueType.FLOAT32: "<f4",
    GGUFValueType.BOOL: "<u1",
    GGUFValueType.UINT64: "<u8",
    GGUFValueType.INT64: "<i8",
    GGUFValueType.FLOAT64: "<f8",
}


class GGMLTypeInfo(NamedTuple):
    """Block layout of a tensor element type: ``block_size`` elements take ``type_size`` bytes."""

    code: int
    name: str
    block_size: int
    type_size: int


_QK_K = 256

# ggml.h ``enum ggml_type`` with ggml.c's block sizes; codes 4, 5, 31-33 and 36-38 were
# removed from ggml and are treated as unknown.
GGML_TYPES: dict[int, GGMLTypeInfo] = {
    t.code: t
    for t in (
        GGMLTypeInfo(0, "F32", 1, 4),
        GGMLTypeInfo(1, "F16", 1, 2),
        GGMLTypeInfo(2, "Q4_0", 32, 2 + 16),
        GGMLTypeInfo(3, "Q4_1", 32, 2 + 2 + 16),
        GGMLTypeInfo(6, "Q5_0", 32, 2 + 4 + 16),
        GGMLTypeInfo(7, "Q5_1", 32, 2 + 2 + 4 + 16),
        GGMLTypeInfo(8, "Q8_0", 32, 2 + 32),
        GGMLTypeInfo(9, "Q8_1", 32, 4 + 4 + 32),
        GGMLTypeInfo(10, "Q2_K", 256, 2 + 2 + _QK_K // 16 + _QK_K // 4),
        GGMLTypeInfo(11, "Q3_K", 256, 2 + _QK_K // 4 + _QK_K // 8 + 12),
        GGMLTypeInfo(12, "Q4_K", 256, 2 + 2 + _QK_K // 2 + 12),
        GGMLTypeInfo(13, "Q5_K", 256, 2 + 2 + _QK_K // 2 + _QK_K // 8 + 12),
        GGMLTypeInfo(14, "Q6_K", 256, 2 + _QK_K // 2 + _QK_K // 4 + _QK_K // 16),
        GGMLTypeInfo(15, "Q8_K", 256, 4 + _QK_K + _QK_K // 8),
        GGMLTypeInfo(16, "IQ2_XXS", 256, 2 + _QK_K // 4),
        GGMLTypeInfo(17, "IQ2_XS", 256, 2 + _QK_K // 4 + _QK_K // 32),
        GGMLTypeInfo(18, "IQ3_XXS", 256, 2 + _QK_K // 4 + _QK_K // 8),
        GGMLTypeInfo(19, "IQ1_S", 256, 2 + _QK_K // 8 + _QK_K // 16),
        GGMLTypeInfo(20, "IQ4_NL", 32, 2 + 16),
        GGMLTypeInfo(21, "IQ3_S", 256, 2 + _QK_K // 4 + _QK_K // 8 + _QK_K // 32 + 4),
        GGMLTypeInfo(22, "IQ2_S", 256, 2 + _QK_K // 4 + _QK_K // 16),
        GGMLTypeInfo(23, "IQ4_XS", 256, 2 + 2 + _QK_K // 2 + _QK_K // 64),
        GGMLTypeInfo(24, "I8", 1, 1),
        GGMLTypeInfo(25, "I16", 1, 2),
        GGMLTypeInfo(26, "I32", 1, 4),
        GGMLTypeInfo(27, "I64", 1, 8),
        GGMLTypeInfo(28, "F64", 1, 8),
        GGMLTypeInfo(29, "IQ1_M", 256, _QK_K // 8 + _QK_K // 16 + _QK_K // 32),
        GGMLTypeInfo(30, "BF16", 1, 2),
        GGMLTypeInfo(34, "TQ1_0", 256, 2 + 4 * 13),
        GGMLTypeInfo(35, "TQ2_0", 256, 2 + 64),
        GGMLTypeInfo(39, "MXFP4", 32, 1 + 16),
        GGMLTypeInfo(40, "NVFP4", 64, 4 + 32),
        GGMLTypeInfo(41, "Q1_0", 128, 2 + 16),
        GGMLTypeInfo(42, "Q2_0", 64, 2 + 16),
    )
}


def ggml_type_name(code: int) -> str:
    """``12`` -> ``'Q4_K'``; unknown codes -> ``'unknown(99)'``.

    >>> ggml_type_name(12), ggml_type_name(4)
    ('Q4_K', 'unknown(4)')
    """
    info = GGML_TYPES.get(code)
    return info.name if info is not None else f"unknown({code})"


def value_type_name(type_: GGUFValueType, value: Any = None, item_type: GGUFValueType | None = None) -> str:
    """Display name of a value's type: ``u32``, ``[string; 151669]``, ``[[i32; 2]; 3]``.

    >>> value_type_name(GGUFValueType.ARRAY, ["a", "b"], GGUFValueType.STRING)
    '[string; 2]'
    """
    if type_ != GGUFValueType.ARRAY:
        return type_.short_name
    n = len(value) if value is not None else 0
    if item_type == GGUFValueType.ARRAY and value is not None and n:
        inner = {_inner_name(v) for v in value}
        inner_name = inner.pop() if len(inner) == 1 else "array"
        return f"[{inner_name}; {n}]"
    return f"[{item_type.short_name if item_type is not None else '?'}; {n}]"


def _inner_name(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"[{_dtype_name(v.dtype)}; {len(v)}]"
    if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
        return f"[string; {len(v)}]"
    return f"[array; {len(v)}]" if isinstance(v, list) and v else "[?; 0]"


def _dtype_name(dtype: np.dtype) -> str:
    if dtype == np.bool_:
        return "bool"
    for t, code in _DTYPE_CODES.items():
        if t != GGUFValueType.BOOL and np.dtype(code).newbyteorder("=") == dtype.newbyteorder("="):
            return t.short_name
    return str(dtype)


def preview_value(value: Any, *, max_items: int = 8, max_chars: int = 200) -> str:
    """One line: strings as escaped literals, arrays as their first items and a count of the rest."""
    if isinstance(value, str):
        text = repr(value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))
    elif isinstance(value, (list, np.ndarray)):
        shown = [preview_value(v, max_items=max_items, max_chars=max_chars) for v in value[:max_items]]
        more = len(value) - len(shown)
        text = "[" + ", ".join(shown) + (f", … (+{more:,})" if more > 0 else "") + "]"
    elif isinstance(value, np.floating):
        text = str(value)  # shortest repr at the value's own precision: f32 1e-05, not 9.99...e-06
    elif isinstance(value, np.generic):
        text = repr(value.item())
    else:
        text = repr(value)
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


# Layout of an array of arrays: for each inner array its item type and, when that is
# ARRAY again, the layout one level down. Needed to write back empty inner arrays exactly.
ArrayLayout = tuple[tuple[GGUFValueType, "ArrayLayout | None"], ...]


@dataclass(frozen=True, slots=True, eq=False)
class GGUFField:
    """One metadata key/value pair as stored in the file."""

    key: str
    """The key; bytes that are not UTF-8 are kept with 'surrogateescape'."""
    type: GGUFValueType
    """Value type; ARRAY for arrays (then ``item_type`` says of what)."""
    value: Any
    """int/float/bool/str scalar; numpy array (numeric), list[str], or list (arrays of arrays)."""
    offset: int
    """Byte offset in the file where this key/value pair starts (its key length)."""
    item_type: GGUFValueType | None = None
    """Element type of an ARRAY, else None."""
    layout: ArrayLayout | None = None
    """For an ARRAY of ARRAYs: the inner arrays' item types (see ``ArrayLayout``)."""
    nbytes: int = 0
    """Encoded size of the whole pair in the file."""
    text: str | None = None
    """For a string array read with ``read_gguf(..., texts=[key])``: ``"\\0" + "\\0".join(value) +
    "\\0"`` (None when an entry holds NUL, or when not asked for)."""

    @property
    def count(self) -> int | None:
        """Number of elements of an array, None for a scalar."""
        return len(self.value) if self.type == GGUFValueType.ARRAY else None

    @property
    def type_name(self) -> str:
        """``u32``, ``[string; 151669]``: what the metadata browser shows."""
        return value_type_name(self.type, self.value, self.item_type)

    def preview(self, *, max_items: int = 8, max_chars: int = 200) -> str:
        """A one-line rendering of the value for lists and tables.

        >>> GGUFField("k", GGUFValueType.ARRAY, ["a", "b\\n"], 0, GGUFValueType.STRING).preview()
        "['a', 'b\\\\n']"
        """
        value = np.float32(self.value) if self.type == GGUFValueType.FLOAT32 else self.value
        return preview_value(value, max_items=max_items, max_chars=max_chars)


@dataclass(frozen=True, slots=True)
class UndecodedStrings:
    """A string array walked but not decoded (``parse_source(..., decode_strings=False)``)."""

    count: int

    def __len__(self) -> int:
        return self.count


class TensorInfo(NamedTuple):
    """A tensor's index entry; its data is never read (a named tuple: a million of them, from a
    hostile file, are built in a fraction of what frozen dataclasses cost)."""

    name: str
    shape: tuple[int, ...]
    """Dimensions as stored (ggml order: ``ne[0]`` first, the fastest-varying)."""
    ggml_type: int
    """ggml element type code (see ``GGML_TYPES``)."""
    offset: int
    """Offset of the data relative to ``GGUFFile.data_offset``."""
    nbytes: int | None
    """Size of the data in bytes; None when the ggml type is unknown to us."""

    @property
    def type_name(self) -> str:
        return ggml_type_name(self.ggml_type)

    @property
    def n_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True, eq=False)
class GGUFFile:
    """Everything in a GGUF file except the tensor data.

    ``fields`` keeps file order. Values are cheap to reach: ``f["general.name"]``,
    ``f.get("tokenizer.ggml.pre")``, ``"tokenizer.ggml.merges" in f``.
    """

    path: Path
    version: int
    big_endian: bool
    alignment: int
    fields: Mapping[str, GGUFField]
    tensors: tuple[TensorInfo, ...]
    data_offset: int
    """Where tensor data starts: the end of the tensor index rounded up to ``alignment``."""
    file_size: int
    """Size in bytes (for a stream not read to its end: what its tensor index implies)."""
    url: str | None = None
    """The URL it was read from (``path`` then holds the URL's file name), None for a local file."""
    size_known: bool = True
    """False when ``file_size`` is only implied (a pipe read only as far as its metadata)."""

    @property
    def location(self) -> str:
        """Where it was read from, for messages: the URL or the path."""
        return self.url if self.url is not None else str(self.path)

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default`` when the file has no such key."""
        field = self.fields.get(key)
        return default if field is None else field.value

    def __getitem__(self, key: str) -> Any:
        return self.fields[key].value

    def __contains__(self, key: object) -> bool:
        return key in self.fields

    def __iter__(self) -> Iterator[str]:
        return iter(self.fields)

    @property
    def metadata(self) -> dict[str, Any]:
        """A new dict key -> value, in file order."""
        return {k: f.value for k, f in self.fields.items()}

    @property
    def tensor_bytes(self) -> int:
        """Total size of the tensors whose type is known."""
        return sum(t.nbytes or 0 for t in self.tensors)


@dataclass(frozen=True, slots=True, eq=False)
class GGUFValue:
    """A value with its GGUF type forced, for the writer.

    >>> GGUFValue(GGUFValueType.ARRAY, [1, 2], item_type=GGUFValueType.INT32).item_type.short_name
    'i32'
    """

    type: GGUFValueType
    value: Any
    item_type: GGUFValueType | None = None
