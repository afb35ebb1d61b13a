"""Write a copy of a GGUF file with some metadata changed and its tensor data copied byte for byte.

Nobody re-quantizes a 40 GB model to fix a token type or a chat template: the copy keeps every
byte of the input except the metadata pairs that change. Unchanged pairs and the tensor index are
copied as raw bytes (their exact encoding, never decoded and re-encoded); changed pairs are encoded
where they were, new ones appended, deleted ones left out. Tensor offsets are relative to the data
section, so only the padding before it moves; the data is then copied in bounded chunks, holes
skipped so a sparse input gives a sparse copy. When ``general.alignment``
itself changes, the tensors are laid out again at the new alignment, each copied to its new offset.

The output is written to a temporary file beside it and renamed, never over the input (not even
through a symlink or a hard link: ``export.check_target``). Knows nothing of tokenizers: the caller
says which keys change (``tui_tok.explore.fix`` decides that).
"""

from __future__ import annotations

import errno
import os
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from tui_tok.errors import GGUFFormatError, OutputError, TuiTokError
from tui_tok.gguf.export import check_target, write_atomic
from tui_tok.gguf.types import GGUFFile, GGUFValue, GGUFValueType
from tui_tok.gguf.writer import encode_kv

_HEADER = 24
CHUNK = 1024 * 1024
"""Bytes per read and write: memory stays at one ``CHUNK`` whatever the file size. A plain read/write
loop, as cp's: ``os.copy_file_range`` copied 10 GB at a quarter of cp's speed here (ext4, 128 against
517 MB/s) where this loop kept up (415 MB/s)."""

CopyProgress = Callable[[int, int], None]
"""Called with (data bytes done, data bytes in all) after each chunk; raise in it to stop the copy
(the temporary file is removed)."""


@dataclass(frozen=True, slots=True)
class RewriteResult:
    """What ``rewrite_gguf`` wrote."""

    path: Path
    data_bytes: int
    """Bytes of the data section (holes included)."""
    data_offset: int
    """Where the data starts: the header, metadata, tensor index and padding take the bytes before."""
    alignment: int


def rewrite_gguf(src: GGUFFile, out: str | os.PathLike[str], changes: Mapping[str, GGUFValue | None], *,
                 force: bool = False, progress: CopyProgress | None = None,
                 sparse: bool = True) -> RewriteResult:  # fmt: skip
    """Copy ``src`` (a local file, read with ``read_gguf``) to ``out`` with ``changes`` applied:
    key -> new value (None: delete the key). ``sparse``: skip the input's holes (False copies them
    as zeros, for a benchmark of the bytes themselves)."""
    if src.url is not None:
        raise OutputError(f"{src.location}: a remote file cannot be rewritten; download it first")
    mode = check_target(out, force=force, source=Path(src.path))
    path = Path(out)
    alignment = _new_alignment(src, changes)
    try:
        fin = open(src.path, "rb")  # closed in finally
    except OSError as exc:
        raise OutputError(f"{src.path}: cannot read it: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fin.fileno())
        if st.st_size != src.file_size:
            raise GGUFFormatError(f"the file is {st.st_size} bytes now, {src.file_size} when it was read: "
                                  "it changed; read it again", path=src.path)  # fmt: skip
        head, moves, data_size = _head(src, fin, changes, alignment)
        return _write(path, mode, fin, head, moves, data_size, alignment, progress, sparse)
    finally:
        fin.close()


def _new_alignment(src: GGUFFile, changes: Mapping[str, GGUFValue | None]) -> int:
    if "general.alignment" not in changes:
        return src.alignment
    v = changes["general.alignment"]
    if v is None:
        return 32
    a = v.value
    if v.type != GGUFValueType.UINT32 or isinstance(a, bool) or not isinstance(a, int) or a <= 0 or a & (a - 1):
        raise TuiTokError(f"general.alignment must be a u32 power of two, not {a!r}")
    return a


def _pread(fin: BinaryIO, offset: int, n: int, name: Path) -> bytes:
    data = os.pread(fin.fileno(), n, offset)
    if len(data) != n:
        raise GGUFFormatError(f"short read: {len(data)} of {n} bytes (the file shrank?)", path=name, offset=offset)
    return data


def _head(src: GGUFFile, fin: BinaryIO, changes: Mapping[str, GGUFValue | None],
          alignment: int) -> tuple[bytes, list[tuple[int, int, int]], int]:  # fmt: skip
    """Everything before the tensor data, the data moves (source offset, length, target offset
    relative to the new data section) and the new data section's size."""
    fields = list(src.fields.values())
    meta_end = fields[-1].offset + fields[-1].nbytes if fields else _HEADER
    raw = memoryview(_pread(fin, 0, meta_end, src.path))
    order = ">" if src.big_endian else "<"
    parts: list[bytes | memoryview] = []
    n_kv = 0
    for f in fields:
        if f.key not in changes:
            parts.append(raw[f.offset : f.offset + f.nbytes])
            n_kv += 1
        elif changes[f.key] is not None:
            parts.append(encode_kv(f.key, changes[f.key], big_endian=src.big_endian))
            n_kv += 1
    for key, value in changes.items():
        if key not in src.fields and value is not None:
            parts.append(encode_kv(key, value, big_endian=src.big_endian))
            n_kv += 1
    names = [t.name.encode("utf-8", "surrogateescape") for t in src.tensors]
    index_size = sum(8 + len(n) + 4 + 8 * len(t.shape) + 12 for n, t in zip(names, src.tensors))
    if -(-(meta_end + index_size) // src.alignment) * src.alignment != src.data_offset:
        raise GGUFFormatError("the tensor index does not end where the reader found it", path=src.path,
                              offset=meta_end)  # fmt: skip
    data_size = max(0, src.file_size - src.data_offset)
    if alignment == src.alignment:
        parts.append(_pread(fin, meta_end, index_size, src.path))
        moves = [(src.data_offset, data_size, 0)] if data_size else []
    else:
        data_size = 0
        moves = []
        offset = 0
        for name, t in zip(names, src.tensors):
            if t.nbytes is None:
                raise TuiTokError(f"{src.path}: tensor {t.name!r} has ggml type {t.ggml_type}, unknown to tui-tok: "
                                  "its data cannot be moved to a new alignment")  # fmt: skip
            parts.append(struct.pack(order + "Q", len(name)) + name)
            parts.append(struct.pack(f"{order}I{len(t.shape)}QIQ", len(t.shape), *t.shape, t.ggml_type, offset))
            moves.append((src.data_offset + t.offset, t.nbytes, offset))
            offset += -(-t.nbytes // alignment) * alignment
        data_size = offset
    header = b"GGUF" + struct.pack(order + "IQQ", src.version, len(src.tensors), n_kv)
    head = header + b"".join(parts)
    if src.tensors or src.file_size > meta_end + index_size:  # padded as the input was
        head += b"\0" * (-len(head) % alignment)
    return head, moves, data_size


def _write(path: Path, mode: int, fin: BinaryIO, head: bytes, moves: list[tuple[int, int, int]], data_size: int,
           alignment: int, progress: CopyProgress | None, sparse: bool) -> RewriteResult:  # fmt: skip
    data_offset = len(head)
    total = sum(n for _, n, _ in moves)

    def fill(fout: BinaryIO) -> None:
        fout.write(head)
        fout.flush()
        done = 0
        for src_off, n, dst in moves:
            _copy(fin.fileno(), fout.fileno(), src_off, data_offset + dst, n, done, total, progress, sparse)
            done += n
        os.ftruncate(fout.fileno(), data_offset + data_size)  # holes and padding: zeros

    write_atomic(path, mode, fill)
    return RewriteResult(path, data_size, data_offset, alignment)


def _copy(fi: int, fo: int, src: int, dst: int, n: int, done: int, total: int, progress: CopyProgress | None,
          sparse: bool) -> None:  # fmt: skip
    """Copy ``n`` bytes from ``fi`` at ``src`` to ``fo`` at ``dst``, skipping the input's holes when
    ``sparse``; ``done``: data bytes copied before this run, for ``progress``."""
    for start, length, is_data in _extents(fi, src, n, sparse):
        at = done + (start - src)
        if is_data:
            _copy_data(fi, fo, start, dst + (start - src), length, at, total, progress)
        if progress is not None:
            progress(at + length, total)


def _extents(fi: int, src: int, n: int, sparse: bool) -> list[tuple[int, int, bool]]:
    """(start, length, holds data) runs covering ``[src, src + n)``: the input's data and holes."""
    end = src + n
    if not sparse or not hasattr(os, "SEEK_DATA"):
        return [(src, n, True)] if n else []
    runs: list[tuple[int, int, bool]] = []
    pos = src
    while pos < end:
        try:
            data = os.lseek(fi, pos, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole up to the end of the file
                runs.append((pos, end - pos, False))
                break
            return [(src, n, True)]  # the filesystem cannot say: copy everything
        data = min(data, end)
        if data > pos:
            runs.append((pos, data - pos, False))
        if data >= end:
            break
        hole = min(os.lseek(fi, data, os.SEEK_HOLE), end)
        runs.append((data, hole - data, True))
        pos = hole
    return runs


def _copy_data(fi: int, fo: int, src: int, dst: int, n: int, base: int, total: int,
               progress: CopyProgress | None) -> None:  # fmt: skip
    """Copy one run of data through one ``CHUNK`` buffer, calling ``progress`` after each chunk."""
    buf = bytearray(min(CHUNK, n))
    copied = 0
    while copied < n:
        view = memoryview(buf)[: min(CHUNK, n - copied)]
        got = os.preadv(fi, [view], src + copied)
        if got <= 0:
            raise GGUFFormatError(f"the file ends at {src + copied}, before its tensor data does (it shrank?)")
        _write_all(fo, view[:got], dst + copied)
        copied += got
        if progress is not None and copied < n:
            progress(base + copied, total)


def _write_all(fo: int, data: memoryview, offset: int) -> None:
    while data:
        w = os.pwrite(fo, data, offset)
        data = data[w:]
        offset += w


__all__ = ["CHUNK", "CopyProgress", "RewriteResult", "rewrite_gguf"]
