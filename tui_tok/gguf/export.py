"""Write a vocab-only copy of a GGUF file: its header and metadata bytes, no tensors.

The metadata is copied as raw bytes (every key, type and value exactly as in the input; the
tensor count set to 0), so memory stays proportional to the output: a 10^7-string array is
walked to find where it ends, never decoded. The output path is checked first: a symlink, a
device, a FIFO, a socket or a directory is refused; an existing file is replaced only with
``force`` (keeping its permission bits); every unusable target is one ``OutputError`` line that
names it. The file is written to a temporary name beside it, then renamed.

Leaves out: metadata from values (writer.py: ``write_gguf``).
"""

from __future__ import annotations

import os
import stat
import struct
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from tui_tok.errors import OutputError
from tui_tok.gguf.reader import parse_source
from tui_tok.gguf.source import ByteSource
from tui_tok.gguf.types import GGUFFile

_HEADER = 24  # magic, version, tensor count, key/value count


def export_metadata(src: ByteSource, out: str | os.PathLike[str], *, force: bool = False) -> tuple[GGUFFile, Path]:
    """Copy ``src``'s metadata (no tensors) to ``out``; returns what was read and the path written.

    ``src`` is not closed here.
    """
    mode = check_target(out, force=force, source=None if hasattr(src, "url") else Path(src.name))
    path = Path(out)
    gguf = parse_source(src, decode_strings=False)
    fields = list(gguf.fields.values())
    end = fields[-1].offset + fields[-1].nbytes if fields else _HEADER
    data = memoryview(src.prefix(end))
    order = ">" if gguf.big_endian else "<"
    head = data[:4].tobytes() + struct.pack(order + "IQQ", gguf.version, 0, len(fields))
    _write_chunks(path, [head, data[_HEADER:end]], mode)
    return gguf, path


def check_target(out: str | os.PathLike[str], *, force: bool, source: Path | None = None) -> int:
    """The permission bits the output will get; raises ``OutputError`` for an unusable target
    (``source``: the input file, never written over)."""
    if not os.fspath(out):
        raise OutputError("the output path is empty: name a file to write")
    path = Path(out)
    if source is not None and _same_file(source, path):
        raise OutputError(f"{path}: refusing to overwrite the input file; choose another output path")
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        parent = path.parent
        if not parent.is_dir():
            what = f"{parent} is not a directory" if parent.exists() else f"the directory {parent} does not exist"
            raise OutputError(f"{path}: cannot write it: {what}") from None
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
    except OSError as exc:
        raise OutputError(f"{path}: cannot write it: {exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        raise OutputError(f"{path}: is a symbolic link; refusing to replace it (name its target instead)")
    kind = _kind(st.st_mode)
    if kind is not None:
        raise OutputError(f"{path}: is {kind}, not a regular file; refusing to write to it")
    if not force:
        raise OutputError(f"{path}: already exists; pass --force to replace it")
    return stat.S_IMODE(st.st_mode)


def _kind(mode: int) -> str | None:
    for test, kind in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) else "not a regular file"


def write_atomic(path: Path, mode: int, fill: Callable[[BinaryIO], None]) -> None:
    """Write ``path`` through a temporary file beside it, renamed over it once ``fill`` has written it
    (never a half-written file at ``path``); an OS error is one ``OutputError`` line, and the temporary
    file is removed on any failure (an interrupted copy too)."""
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write it: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fill(fh)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OutputError(f"{path}: cannot write it: {exc.strerror or exc}") from None
        raise


def _write_chunks(path: Path, chunks: list[bytes | memoryview], mode: int) -> None:
    def fill(fh: BinaryIO) -> None:
        for chunk in chunks:
            fh.write(chunk)

    write_atomic(path, mode, fill)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        try:
            return a.resolve() == b.resolve()
        except (OSError, RuntimeError):
            return False
