"""Where the reader's bytes come from: a file read with ``pread``, a pipe read as a stream, or any
object with the same two methods (the HTTP range reader in ``tui_tok.sources``).

The reader asks a source for *the first n bytes* and parses them; when the metadata runs past
them it asks for more (and parses again), so a 40 GB model costs only its header. The file is
never mapped: a file that shrinks while it is read (still being downloaded or converted) gives a short
read, reported as one ``GGUFFormatError``, where a mapping would kill the process with SIGBUS.

Non-regular paths never hang: a FIFO is opened without blocking and waited on for at most
``FIFO_WAIT`` seconds; devices and sockets are refused by name, before they are opened; a file
whose size the system does not report (``/proc``) and a pipe with data are read as streams.

Leaves out: parsing (reader.py), URLs (``tui_tok.sources``).
"""

from __future__ import annotations

import mmap
import os
import select
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from tui_tok.errors import GGUFFormatError, GGUFOpenError

FIFO_WAIT = 2.0
"""Seconds to wait for a FIFO's writer (and between two chunks of a pipe) before giving up."""
LOCAL_FIRST_READ = 64 * 1024 * 1024
"""A file up to this size is read whole (every vocab file); a bigger one by its first 16 MB, then more."""
_BIG_FILE_FIRST = 16 * 1024 * 1024
_CHUNK = 1 << 20

Progress = Callable[[int, "int | None"], None]
"""Called with (bytes read so far, total size or None) while a slow source delivers the header."""


class ByteSource(Protocol):
    """What the reader needs of a source of bytes."""

    name: str
    """How errors name it: a path or a URL (with what it is, for a pipe: ``x (a FIFO)``)."""
    size: int | None
    """Total size in bytes, None when unknown (a pipe, a server that does not say)."""
    first_read: int
    """How many bytes to ask for first."""

    def prefix(self, n: int) -> Any:
        """The first ``n`` bytes (fewer only when the source ends first): any buffer that
        ``struct.unpack_from``, slicing and ``numpy.frombuffer`` accept."""
        ...

    def close(self) -> None:
        """Release the file or connection (the parsed result does not need it)."""
        ...


class LocalFile:
    """A regular file read with ``preadv`` into memory of our own (an anonymous mapping, its pages
    faulted in at once); a read shorter than the size seen at open is an error."""

    def __init__(self, fd: int, path: Path, size: int) -> None:
        self.fd = fd
        self.name = str(path)
        self.size: int | None = size
        self.first_read = size if size <= LOCAL_FIRST_READ else _BIG_FILE_FIRST
        self._data: Any = b""
        self._have = 0

    def prefix(self, n: int) -> Any:
        assert self.size is not None
        n = min(n, self.size)
        if n > self._have:
            buf = _anonymous(n)
            view = memoryview(buf)
            if self._have:
                view[: self._have] = memoryview(self._data)[: self._have]
            have = self._have
            while have < n:
                try:
                    got = os.preadv(self.fd, [view[have:n]], have)
                except OSError as exc:
                    raise GGUFOpenError(f"{self.name}: cannot read at offset {have}: {exc.strerror or exc}") from None
                if not got:
                    now = _size_now(self.fd)
                    raise GGUFFormatError(
                        f"the file shrank while it was read: {self.size} bytes when opened, {now} now "
                        "(is it still being written?)",
                        path=self.name,
                        offset=have,
                    )
                have += got
            view.release()
            self._data, self._have = buf, n
        return self._data if n == self._have else memoryview(self._data)[:n]

    def close(self) -> None:
        os.close(self.fd)


def _anonymous(n: int) -> Any:
    """``n`` zero bytes of private memory, pages populated in one go where the system can (cheaper
    than a fault per page of a fresh heap block: the read then costs what a mapping did). Only up to
    ``LOCAL_FIRST_READ``: what a file claims never reaches here unchecked (the reader caps it), and
    a bigger buffer is faulted in by the read itself, as far as the read gets."""
    populate = getattr(mmap, "MAP_POPULATE", 0) if n <= LOCAL_FIRST_READ else 0
    flags = getattr(mmap, "MAP_PRIVATE", 0) | getattr(mmap, "MAP_ANONYMOUS", 0) | populate
    try:
        return mmap.mmap(-1, n, flags=flags) if flags else bytearray(n)
    except (OSError, ValueError):
        return bytearray(n)


class StreamSource:
    """A pipe, FIFO or size-less file read front to back; only as much as the metadata needs."""

    def __init__(self, fd: int, name: str, *, wait: float = FIFO_WAIT, progress: Progress | None = None) -> None:
        self.fd = fd
        self.name = name
        self.size: int | None = None
        self.first_read = 1 << 20
        self.wait = wait
        self.progress = progress
        self._parts: list[bytes] = []
        self._have = 0
        self._eof = False
        self._data = b""

    def prefix(self, n: int) -> bytes:
        while self._have < n and not self._eof:
            chunk = self._read_chunk(min(n - self._have, 4 * _CHUNK))
            if not chunk:
                self._eof = True
                break
            self._parts.append(chunk)
            self._have += len(chunk)
            if self.progress is not None:
                self.progress(self._have, None)
        if len(self._parts) != 1 or self._parts[0] is not self._data:
            self._data = b"".join(self._parts)
            self._parts = [self._data]
        return self._data if n >= len(self._data) else self._data[:n]

    def _read_chunk(self, n: int) -> bytes:
        deadline = time.monotonic() + self.wait
        while True:
            try:
                return os.read(self.fd, n)
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise GGUFOpenError(
                        f"{self.name}: nothing arrived for {self.wait:g} s after {self._have} bytes; giving up"
                    ) from None
                select.select([self.fd], [], [], left)
            except OSError as exc:
                raise GGUFOpenError(f"{self.name}: cannot read: {exc.strerror or exc}") from None

    def close(self) -> None:
        os.close(self.fd)


def _path_error(p: Path, exc: OSError, failed: str) -> GGUFOpenError:
    """The one-line error for a failed stat or open of ``p`` (``failed``: what else to say)."""
    if isinstance(exc, IsADirectoryError):
        return GGUFOpenError(f"{p}: is a directory, not a GGUF file")
    if isinstance(exc, FileNotFoundError):
        return GGUFOpenError(f"{p}: no such file")
    if isinstance(exc, PermissionError):
        return GGUFOpenError(f"{p}: permission denied")
    return GGUFOpenError(f"{p}: {failed}: {exc.strerror or exc}")


def open_local(path: str | os.PathLike[str], *, fifo_wait: float = FIFO_WAIT) -> ByteSource:
    """Open ``path`` for reading without ever blocking; one-line errors say what the path is."""
    p = Path(path)
    name = str(p)
    if name == "":
        raise GGUFOpenError("the path is empty: name a GGUF file")
    if "\0" in name:
        raise GGUFOpenError(f"{name!r}: a path cannot hold a NUL character")
    try:
        st = os.stat(p)
    except OSError as exc:
        raise _path_error(p, exc, "cannot read") from None
    kind = _refused_kind(st.st_mode)
    if kind is not None:
        raise GGUFOpenError(f"{p}: is {kind}, not a GGUF file")
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _path_error(p, exc, "cannot open") from None
    try:
        st = os.fstat(fd)  # what was opened (the path may have changed since the stat)
        kind = _refused_kind(st.st_mode)
        if kind is not None:
            raise GGUFOpenError(f"{p}: is {kind}, not a GGUF file")
        if stat.S_ISFIFO(st.st_mode):
            return _open_pipe(fd, p, fifo_wait)
        if st.st_size == 0:
            return _open_sizeless(fd, p)
        return LocalFile(fd, p, st.st_size)
    except BaseException:
        os.close(fd)
        raise


def _open_pipe(fd: int, p: Path, wait: float) -> ByteSource:
    """A FIFO or pipe: wait up to ``wait`` s for data; no writer at all is an error, not a hang."""
    what = "a pipe" if str(p).startswith(("/dev/fd/", "/proc/")) else "a FIFO"
    ready, _, _ = select.select([fd], [], [], wait)
    if not ready:
        raise GGUFOpenError(f"{p}: is {what} and nothing was written to it within {wait:g} s")
    try:
        first = os.read(fd, 1 << 16)
    except BlockingIOError:
        first = None
    if first == b"":
        raise GGUFOpenError(f"{p}: is {what} with no writer (nothing to read)")
    src = StreamSource(fd, f"{p} ({what})", wait=wait)
    if first:
        src._parts, src._have = [first], len(first)
    return src


def _open_sizeless(fd: int, p: Path) -> ByteSource:
    """A regular file of size 0: truly empty, or a /proc-like file whose size is not reported."""
    try:
        first = os.read(fd, 1 << 16)
    except OSError as exc:
        raise GGUFOpenError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if not first:
        raise GGUFFormatError("the file is empty (0 bytes), not a GGUF file", path=p, offset=0)
    src = StreamSource(fd, f"{p} (a file whose size the system does not report, read as a stream)")
    src._parts, src._have = [first], len(first)
    return src


def _refused_kind(mode: int) -> str | None:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def _size_now(fd: int) -> int | str:
    try:
        return os.fstat(fd).st_size
    except OSError:
        return "unknown"


__all__ = ["ByteSource", "LocalFile", "StreamSource", "open_local", "FIFO_WAIT", "Progress"]
