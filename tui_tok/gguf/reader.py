"""Read a GGUF file's header, metadata and tensor index (never the tensor data).

Supports GGUF v2 and v3, little- and big-endian (big-endian shows as a byte-swapped
version number). The file is read through a ``ByteSource`` (source.py: ``pread`` for files,
never a mapping, so a file that shrinks under us is an error, not SIGBUS; pipes; HTTP ranges),
its first bytes only, more when the metadata needs more; every count
and length is checked against the bytes left *before* it is used, so a lying file
fails at once with a ``GGUFFormatError`` naming the file, offset and key instead of
allocating or looping. Numeric arrays come back as read-only numpy arrays in native
byte order; string arrays as ``list[str]`` via the vectorised decoder in strings.py.

The bytes left are no bound when the size is a claim (a server's Content-Range, a sparse file), so
what the metadata may claim is capped too (the ``MAX_*`` below), checked before a byte of it is
asked for: a lying length is one error line, never a 1 TiB range request or a 20 GiB buffer.

Leaves out: what the keys mean (the tokenizer package), writing (writer.py).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Collection
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from tui_tok.errors import GGUFFormatError, GGUFOpenError
from tui_tok.gguf.source import ByteSource, open_local
from tui_tok.gguf.strings import (
    MAX_HEADER_BYTES,
    MAX_STRING_BYTES,
    read_string_array,
    read_string_array_text,
    read_strings_plain,
    skip_string_array,
)
from tui_tok.gguf.tensor_index import fast_tensor_infos, layout_is_valid
from tui_tok.gguf.types import (
    GGML_TYPES,
    ArrayLayout,
    ByteOrder,
    GGUFField,
    GGUFFile,
    GGUFValueType,
    TensorInfo,
    UndecodedStrings,
)

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32
MAX_ARRAY_DEPTH = 8
MAX_ARRAY_ITEMS = 1 << 22
"""Items in one array: 16x the largest vocabulary, 8x Gemma 4's 514,906 merges."""
MAX_NESTED_ARRAYS = 1 << 16
"""Arrays inside arrays, in all (llama.cpp reads none; each costs a Python object)."""
MAX_KEYS = 1 << 16
"""Key/value pairs (real files have under a hundred)."""
MAX_TENSORS = 1 << 20
"""Tensor index entries (the largest mixtures of experts have tens of thousands)."""
MAX_DIMS = 4  # GGML_MAX_DIMS
_HEADER_SIZE = 24
# smallest possible encodings, used to reject counts the remaining bytes cannot hold
_MIN_KV_SIZE = 8 + 1 + 4 + 1
_MIN_TENSOR_INFO_SIZE = 8 + 4 + 4 + 8
_MIN_ITEM_SIZE = {GGUFValueType.STRING: 8, GGUFValueType.ARRAY: 12}

_T = GGUFValueType


def read_gguf(
    path: str | os.PathLike[str] | ByteSource, *, texts: Collection[str] = (), url: str | None = None
) -> GGUFFile:
    """Read everything in a GGUF file but the tensor data.

    ``path``: a local path (any kind: FIFOs, pipes and devices are handled, see source.py) or an
    open ``ByteSource`` (e.g. an HTTP range reader), which is closed when done. ``texts``: keys of
    string arrays whose whole text to keep as well (``GGUFField.text``), for a caller that would
    otherwise join the strings again; the decoder has it for free. ``url``: recorded as
    ``GGUFFile.url`` when the bytes came from there.

    >>> f = read_gguf("assets/qwen3-vocab.gguf")            # doctest: +SKIP
    >>> f.get("tokenizer.ggml.pre"), len(f["tokenizer.ggml.tokens"])   # doctest: +SKIP
    ('qwen2', 151669)
    """
    src = path if hasattr(path, "prefix") else open_local(path)  # type: ignore[arg-type]
    try:
        return parse_source(src, texts=texts, url=url)  # type: ignore[arg-type]
    finally:
        src.close()  # type: ignore[union-attr]


def parse_source(
    src: ByteSource, *, texts: Collection[str] = (), url: str | None = None, decode_strings: bool = True
) -> GGUFFile:
    """Parse ``src`` from its first bytes, asking for more (and parsing again) until the metadata
    and tensor index fit: at most about twice the header is ever read, never tensor data.

    ``decode_strings=False``: string arrays are walked, not decoded (their value is an
    ``UndecodedStrings``): for a copy of the raw bytes, in memory proportional to them."""
    want = max(1, src.first_read)
    parser: _Parser | None = None
    while True:
        buf = src.prefix(want)
        complete = len(buf) < want or (src.size is not None and len(buf) >= src.size)
        if parser is None:
            parser = _Parser(buf, src.name, src.size, complete=complete, texts=texts, url=url)
            parser.decode_strings = decode_strings
        else:
            parser.refill(buf, complete)
        try:
            return parser.parse()
        except _NeedMore as more:
            parser.pos = parser.checkpoint  # resume at the key or tensor that did not fit
            want = max(min(2 * len(buf), MAX_HEADER_BYTES), more.needed)  # needed: checked against the cap


def parse_gguf_bytes(data: bytes, *, path: str | os.PathLike[str] = "<bytes>", texts: Collection[str] = ()) -> GGUFFile:
    """Parse a GGUF file held in memory (for tests and tools); ``texts`` as for ``read_gguf``."""
    return _Parser(data, str(path), len(data), complete=True, texts=texts).parse()


class _NeedMore(Exception):
    """The bytes read so far end before the metadata does: read up to ``needed`` and parse again."""

    def __init__(self, needed: int) -> None:
        super().__init__(needed)
        self.needed = needed


class _Parser:
    """One pass over the bytes; ``pos`` only moves forward."""

    def __init__(
        self,
        buf: Any,
        name: str,
        size: int | None,
        *,
        complete: bool,
        texts: Collection[str] = (),
        url: str | None = None,
    ) -> None:
        self.buf = buf
        self.texts = texts
        self.path = name
        self.url = url
        self.size = size
        """The file's size when known (None: a pipe, a server that does not say)."""
        self.avail = len(buf)
        """How many of its first bytes ``buf`` holds."""
        self.complete = complete
        """``buf`` holds the whole file (or all the stream had)."""
        self.end = self.avail if complete else (size if size is not None else 2**63)
        """Where the file ends, as far as errors are concerned."""
        self.pos = 0
        self.checkpoint = 0
        """Where the item being parsed starts: parsing resumes there once more bytes are in."""
        self.header_done = False
        self.fields: dict[str, GGUFField] = {}
        self.tensors: list[TensorInfo] = []
        self.tensor_offsets: list[int] = []
        self.seen: set[str] = set()
        self.decode_strings = True
        self.nested_arrays = 0
        self.nested_done = 0  # counted by the keys parsed whole (a key parsed again counts once)
        self.key: str | None = None
        self.big_endian = False
        self.order: ByteOrder = "<"

    def refill(self, buf: Any, complete: bool) -> None:
        """Continue with a longer prefix of the same file (what was parsed stays parsed)."""
        self.buf = buf
        self.avail = len(buf)
        self.complete = complete
        self.end = self.avail if complete else (self.size if self.size is not None else 2**63)

    # -- errors and primitive reads -------------------------------------------------

    def fail(self, message: str, offset: int | None = None) -> NoReturn:
        raise GGUFFormatError(message, path=self.path, offset=self.pos if offset is None else offset, key=self.key)

    def need(self, n: int, what: str) -> None:
        left = self.end - self.pos
        if n > left:
            self.fail(f"{what} needs {n} bytes but only {left} are left in the file (truncated?)")
        if self.pos + n > MAX_HEADER_BYTES:
            self.past_cap(what, self.pos + n)
        if self.pos + n > self.avail:
            raise _NeedMore(self.pos + n)

    def more(self, needed: int) -> NoReturn:
        raise _NeedMore(needed)

    def scalar(self, fmt: str, what: str) -> Any:
        s = struct.Struct(self.order + fmt)
        self.need(s.size, what)
        (v,) = s.unpack_from(self.buf, self.pos)
        self.pos += s.size
        return v

    def u32(self, what: str) -> int:
        return int(self.scalar("I", what))

    def u64(self, what: str) -> int:
        return int(self.scalar("Q", what))

    def string(self, what: str) -> str:
        start = self.pos
        n = self.u64(f"{what} length")
        if n > self.end - self.pos:
            self.fail(f"{what} length {n} exceeds the {self.end - self.pos} bytes left in the file", start)
        if n > MAX_STRING_BYTES:
            self.fail(f"{what} length {n} is more than the {MAX_STRING_BYTES} bytes a string may have", start)
        if self.pos + n > MAX_HEADER_BYTES:
            self.past_cap(what, self.pos + n)
        if self.pos + n > self.avail:
            raise _NeedMore(self.pos + n)
        s = str(self.buf[self.pos : self.pos + n], "utf-8", "surrogateescape")
        self.pos += n
        return s

    def count(self, item_size: int, what: str) -> int:
        start = self.pos
        n = self.u64(f"{what} count")
        left = self.end - self.pos
        if n * item_size > left:
            self.fail(
                f"{what} count {n} needs at least {n * item_size} bytes but only {left} are left in the file",
                start,
            )
        if n > MAX_ARRAY_ITEMS:
            self.fail(f"{what} count {n} is more than the {MAX_ARRAY_ITEMS} items an array may have", start)
        if self.pos + n * item_size > MAX_HEADER_BYTES:
            self.past_cap(what, self.pos + n * item_size)
        return n

    def past_cap(self, what: str, stop: int) -> NoReturn:
        self.fail(
            f"{what} would end the metadata at byte {stop}, past the {MAX_HEADER_BYTES} bytes "
            "the metadata and tensor index may take"
        )

    def value_type(self, what: str) -> GGUFValueType:
        start = self.pos
        code = self.u32(what)
        try:
            return GGUFValueType(code)
        except ValueError:
            self.fail(f"unknown {what} {code} (valid: 0-12)", start)

    # -- the file --------------------------------------------------------------------

    def parse(self) -> GGUFFile:
        if not self.header_done:
            self.pos = self.checkpoint = 0
            self.header()
            self.header_done = True
            self.checkpoint = self.pos
        n_tensors, n_kv = self.n_tensors, self.n_kv
        fields = self.fields
        while len(fields) < n_kv:
            index = len(fields)
            self.key = None
            start = self.checkpoint = self.pos
            self.nested_arrays = self.nested_done
            key = self.string(f"key {index}")
            if not key:
                self.fail(f"key {index} is empty", start)
            self.key = key
            if key in fields:
                self.fail(f"duplicate key (first at offset {fields[key].offset})", start)
            fields[key] = self.field(key, start)
            self.nested_done = self.nested_arrays
        self.key = None
        alignment = self.alignment(fields)
        tensors = self.tensor_infos(n_tensors)
        data_offset = -(-self.pos // alignment) * alignment
        self.check_tensors(tensors, data_offset, alignment)
        if self.size is not None:
            file_size = self.size
        elif self.complete:
            file_size = self.avail
        else:  # a stream never read to its end: the size its tensor index implies
            file_size = max([data_offset] + [data_offset + t.offset + (t.nbytes or 0) for t in tensors])
        return GGUFFile(
            path=Path(self.path if self.url is None else self.url.rsplit("/", 1)[-1].split("?")[0]),
            version=self.version,
            big_endian=self.big_endian,
            alignment=alignment,
            fields=fields,
            tensors=tuple(tensors),
            data_offset=data_offset,
            file_size=file_size,
            url=self.url,
            size_known=self.size is not None or self.complete,
        )

    def header(self) -> None:
        self.need(4, "magic")
        magic = bytes(self.buf[0:4])
        if magic != GGUF_MAGIC:
            self.fail(f"bad magic {magic!r}: not a GGUF file (expected b'GGUF')", 0)
        self.pos = 4
        self.need(4, "version")
        (version,) = struct.unpack_from("<I", self.buf, 4)
        if version & 0xFFFF == 0 and version != 0:  # written big-endian
            self.big_endian, self.order = True, ">"
            version = int.from_bytes(version.to_bytes(4, "little"), "big")
        if version not in SUPPORTED_VERSIONS:
            hint = " (GGUF v1 is obsolete: re-convert the model)" if version == 1 else ""
            self.fail(f"unsupported GGUF version {version}: only versions 2 and 3 are supported{hint}", 4)
        self.version = version
        self.pos = 8
        self.n_tensors = self.u64("tensor count")
        self.n_kv = self.u64("metadata key/value count")
        left = self.end - self.pos
        if self.n_kv * _MIN_KV_SIZE + self.n_tensors * _MIN_TENSOR_INFO_SIZE > left:
            self.fail(
                f"header claims {self.n_kv} key/value pairs and {self.n_tensors} tensors, "
                f"more than the {left} bytes left in the file can hold",
                8,
            )
        if self.n_kv > MAX_KEYS or self.n_tensors > MAX_TENSORS:
            self.fail(
                f"header claims {self.n_kv} key/value pairs and {self.n_tensors} tensors: "
                f"at most {MAX_KEYS} and {MAX_TENSORS} are read",
                8,
            )

    def field(self, key: str, start: int) -> GGUFField:
        vtype = self.value_type("value type")
        if vtype != _T.ARRAY:
            value = self.scalar_value(vtype)
            return GGUFField(key, vtype, value, start, None, None, self.pos - start)
        if key in self.texts and self.peek_u32() == _T.STRING:
            self.pos += 4
            n = self.count(8, "string array")
            value, text, self.pos = read_string_array_text(
                self.buf,
                self.pos,
                n,
                self.end,
                big_endian=self.big_endian,
                fail=self.fail,
                avail=self.avail,
                more=self.more,
            )
            return GGUFField(key, vtype, value, start, _T.STRING, None, self.pos - start, text)
        item_type, value, layout = self.array(depth=1)
        return GGUFField(key, vtype, value, start, item_type, layout, self.pos - start)

    def peek_u32(self) -> int | None:
        """The u32 at ``pos`` without moving (None when the file ends first)."""
        if self.end - self.pos < 4:
            return None
        if self.pos + 4 > self.avail:
            raise _NeedMore(self.pos + 4)
        return int(struct.unpack_from(self.order + "I", self.buf, self.pos)[0])

    def scalar_value(self, vtype: GGUFValueType) -> Any:
        if vtype == _T.STRING:
            return self.string("string")
        if vtype == _T.BOOL:
            return bool(self.scalar("B", "bool"))
        return self.scalar(_SCALAR_FORMATS[vtype], vtype.short_name)

    def array(self, depth: int) -> tuple[GGUFValueType, Any, ArrayLayout | None]:
        if depth > MAX_ARRAY_DEPTH:
            self.fail(f"arrays nested more than {MAX_ARRAY_DEPTH} deep")
        item_type = self.value_type("array item type")
        if item_type == _T.STRING:
            n = self.count(8, "string array")
            if not self.decode_strings:
                self.pos = skip_string_array(
                    self.buf,
                    self.pos,
                    n,
                    self.end,
                    big_endian=self.big_endian,
                    fail=self.fail,
                    avail=self.avail,
                    more=self.more,
                )
                return item_type, UndecodedStrings(n), None
            values, self.pos = read_string_array(
                self.buf,
                self.pos,
                n,
                self.end,
                big_endian=self.big_endian,
                fail=self.fail,
                avail=self.avail,
                more=self.more,
            )
            return item_type, values, None
        if item_type == _T.ARRAY:
            n = self.count(12, "array of arrays")
            self.nested_arrays += n
            if self.nested_arrays > MAX_NESTED_ARRAYS:
                self.fail(f"more than {MAX_NESTED_ARRAYS} arrays inside arrays")
            items: list[Any] = []
            layout: list[tuple[GGUFValueType, ArrayLayout | None]] = []
            for _ in range(n):
                inner_type, inner, inner_layout = self.array(depth + 1)
                items.append(inner)
                layout.append((inner_type, inner_layout))
            return item_type, items, tuple(layout)
        dtype = item_type.numpy_dtype
        assert dtype is not None
        n = self.count(dtype.itemsize, f"{item_type.short_name} array")
        self.need(n * dtype.itemsize, f"{item_type.short_name} array")
        raw = np.frombuffer(self.buf, dtype=dtype.newbyteorder(self.order), count=n, offset=self.pos)
        arr = (raw != 0) if item_type == _T.BOOL else raw.astype(dtype.newbyteorder("="))  # copies
        del raw
        arr.flags.writeable = False
        self.pos += n * dtype.itemsize
        return item_type, arr, None

    def alignment(self, fields: dict[str, GGUFField]) -> int:
        field = fields.get("general.alignment")
        if field is None:
            return DEFAULT_ALIGNMENT
        self.key = field.key
        if field.type != _T.UINT32:
            self.fail(f"general.alignment must be u32, not {field.type_name}", field.offset)
        a = int(field.value)
        if a <= 0 or a & (a - 1):
            self.fail(f"alignment {a} is not a power of two", field.offset)
        self.key = None
        return a

    def tensor_infos(self, n_tensors: int) -> list[TensorInfo]:
        """The tensor index: runs of plainly valid entries in bulk (tensor_index.py), the
        checked one-by-one path for an entry that is cut by the buffer's end or wrong."""
        tensors = self.tensors
        while len(tensors) < n_tensors:
            self.checkpoint = self.pos
            infos, offsets, end = fast_tensor_infos(
                self.buf, self.pos, self.avail, n_tensors - len(tensors), self.order, self.seen
            )
            if infos:
                tensors += infos
                self.tensor_offsets += offsets
                self.pos = end
            else:
                self.tensor_info(len(tensors))
        return tensors

    def tensor_info(self, index: int) -> None:
        """One index entry, every field checked (errors name the tensor and offset)."""
        start = self.pos
        name = self.string(f"tensor {index} name")
        if name in self.seen:
            self.fail(f"duplicate tensor name {name!r}", start)
        n_dims = self.u32(f"tensor {name!r} dimension count")
        if n_dims > MAX_DIMS:
            self.fail(f"tensor {name!r} has {n_dims} dimensions (at most {MAX_DIMS})", self.pos - 4)
        self.need(8 * n_dims, f"tensor {name!r} shape")
        shape = struct.unpack_from(f"{self.order}{n_dims}Q", self.buf, self.pos)
        n_elements = 1
        for d in shape:
            if d >= 2**63:
                self.fail(f"tensor {name!r} has a negative dimension in shape {shape}")
            n_elements *= d
        if n_elements >= 2**63:
            self.fail(f"tensor {name!r} shape {shape} has more than 2^63 elements")
        self.pos += 8 * n_dims
        ggml_type = self.u32(f"tensor {name!r} type")
        offset = self.u64(f"tensor {name!r} offset")
        info = TensorInfo(name, tuple(shape), ggml_type, offset, self.nbytes(name, shape, ggml_type))
        self.tensors.append(info)
        self.seen.add(name)
        self.tensor_offsets.append(start)

    def nbytes(self, name: str, shape: tuple[int, ...], ggml_type: int) -> int | None:
        info = GGML_TYPES.get(ggml_type)
        if info is None:
            return None
        row = shape[0] if shape else 1
        if row % info.block_size:
            self.fail(
                f"tensor {name!r} of type {info.name} has {row} elements per row, "
                f"not a multiple of its block size {info.block_size}"
            )
        n_elements = 1
        for d in shape:
            n_elements *= d
        return n_elements // info.block_size * info.type_size

    def check_tensors(self, tensors: list[TensorInfo], data_offset: int, alignment: int) -> None:
        """llama.cpp's rule: data in index order, each padded to the alignment, inside the file."""
        expected: int | None = 0
        # a stream not read to its end has no known end: its data cannot be checked against it
        file_end = self.size if self.size is not None else (self.avail if self.complete else 2**63)
        if layout_is_valid(tensors, data_offset, alignment, file_end):
            return
        for t, entry in zip(tensors, self.tensor_offsets):
            if t.offset % alignment:
                self.fail(
                    f"tensor {t.name!r} data offset {t.offset} is not a multiple of the alignment {alignment}", entry
                )
            if expected is not None and t.offset != expected:
                self.fail(
                    f"tensor {t.name!r} data offset is {t.offset}, expected {expected} "
                    "(tensor data must follow the index order, each padded to the alignment)",
                    entry,
                )
            if t.nbytes is None:  # unknown type: its size, and so the next offsets, cannot be checked
                expected = None
                continue
            if data_offset + t.offset + t.nbytes > file_end:
                self.fail(
                    f"tensor {t.name!r} data ({t.nbytes} bytes at {data_offset + t.offset}) "
                    f"ends past the end of the file ({file_end} bytes)",
                    entry,
                )
            if expected is not None:
                expected += -(-t.nbytes // alignment) * alignment


_SCALAR_FORMATS = {
    _T.UINT8: "B",
    _T.INT8: "b",
    _T.UINT16: "H",
    _T.INT16: "h",
    _T.UINT32: "I",
    _T.INT32: "i",
    _T.FLOAT32: "f",
    _T.UINT64: "Q",
    _T.INT64: "q",
    _T.FLOAT64: "d",
}

__all__ = [
    "read_gguf",
    "parse_gguf_bytes",
    "GGUFOpenError",
    "read_strings_plain",
    "MAX_ARRAY_ITEMS",
    "MAX_HEADER_BYTES",
    "MAX_KEYS",
    "MAX_NESTED_ARRAYS",
    "MAX_STRING_BYTES",
    "MAX_TENSORS",
]
