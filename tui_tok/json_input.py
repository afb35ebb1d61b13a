"""JSON from outside, in bounded time and memory: ``--messages``, ``--tools``, ``--set`` values,
``--jsonl`` lines, a ``tokenizer.json``, an ollama manifest, the hub's file list.

``json.loads`` alone has three holes: ``'[' * 100000`` is a ``RecursionError`` (or, at depths
just under the limit, a template or renderer that recurses over it later), a 30 MB line of
``[[],[],...`` costs gigabytes of Python objects, and a file that is a FIFO hangs the read. Here
the bytes are capped first (``max_bytes``; a stream is read one cap plus a byte, a line with
``readline(limit)``), then nesting depth and the count of arrays and objects are measured on the
raw text (by numpy: brackets outside strings, summed) before anything is parsed.
Every failure is a ``JSONInputError`` whose one-line message does not name the source: callers
prefix it with the file, line or argument they read.

Leaves out: what the values must look like (each caller checks its own).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import numpy as np

MAX_BYTES = 16 * 1024 * 1024
"""A conversation, a tools list, a line of ``--jsonl`` (a longer text goes in ``--file``)."""
MAX_DEPTH = 64
"""Nesting (a tool's JSON schema is about 10 deep)."""
MAX_CONTAINERS = 1 << 20
"""Arrays and objects in one value."""


class JSONInputError(ValueError):
    """JSON that is too big, too deep, unreadable or not JSON; the message names no source."""


class JSONLimitError(JSONInputError):
    """JSON past a bound (bytes, depth, containers): not a value to take as plain text instead."""


def load_json(
    data: str | bytes,
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    max_containers: int = MAX_CONTAINERS,
) -> Any:
    """``json.loads(data)`` once the size, depth and container count are known to be in bounds.

    >>> load_json('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> load_json("[" * 100000)
    Traceback (most recent call last):
    ...
    tui_tok.json_input.JSONLimitError: nested more than 64 deep
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > max_bytes:
        raise JSONLimitError(f"{len(raw):,} bytes, more than the {max_bytes:,} allowed")
    depth, containers = _shape(raw)
    if depth > max_depth:
        raise JSONLimitError(f"nested more than {max_depth} deep")
    if containers > max_containers:
        raise JSONLimitError(f"{containers:,} arrays and objects, more than the {max_containers:,} allowed")
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise JSONInputError(f"not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:  # not reached when the depth check holds; kept so that nothing escapes
        raise JSONLimitError(f"nested more than {max_depth} deep") from None
    except ValueError as exc:  # bad UTF-8, an integer of more than 4300 digits
        raise JSONInputError(f"not JSON: {exc}") from None


def _shape(raw: bytes) -> tuple[int, int]:
    """(deepest nesting, number of arrays and objects) of JSON text, brackets inside strings left out.

    A quote is escaped when an odd run of backslashes precedes it; the quotes left alternate opening
    and closing, so a bracket is inside a string when an odd number of them precede it."""
    a = np.frombuffer(raw, dtype=np.uint8)
    quotes = np.flatnonzero(a == ord('"'))
    slashes = np.flatnonzero(a == ord("\\"))
    if slashes.size and quotes.size:
        new_run = np.ones(slashes.size, dtype=bool)
        new_run[1:] = slashes[1:] != slashes[:-1] + 1
        run_start = np.maximum.accumulate(np.where(new_run, slashes, 0))  # per backslash: where its run starts
        k = np.searchsorted(slashes, quotes - 1)
        k_ok = np.minimum(k, slashes.size - 1)
        preceded = (k < slashes.size) & (slashes[k_ok] == quotes - 1)
        escaped = preceded & ((quotes - run_start[k_ok]) % 2 == 1)
        quotes = quotes[~escaped]
    brackets = np.flatnonzero((a == ord("[")) | (a == ord("{")) | (a == ord("]")) | (a == ord("}")))
    brackets = brackets[np.searchsorted(quotes, brackets) % 2 == 0]
    if not brackets.size:
        return 0, 0
    opening = (a[brackets] == ord("[")) | (a[brackets] == ord("{"))
    steps = opening.astype(np.int32) * 2 - 1
    return int(np.cumsum(steps).max()), int(np.count_nonzero(opening))


def read_stream(stream: BinaryIO | TextIO, *, max_bytes: int = MAX_BYTES) -> bytes:
    """All of ``stream`` (stdin), refused past ``max_bytes`` without reading on."""
    data = stream.read(max_bytes + 1)
    if isinstance(data, str):  # a text stream (a test's StringIO): characters, about as many bytes
        data = data.encode("utf-8", "surrogateescape")
    if len(data) > max_bytes:
        raise JSONInputError(f"more than the {max_bytes:,} bytes allowed")
    return data


def read_file(path: str | os.PathLike[str], *, max_bytes: int = MAX_BYTES, regular_only: bool = True) -> bytes:
    """The bytes of ``path``, opened without blocking: a FIFO, device or directory is refused when
    ``regular_only`` (a file found in a folder or store), and a file over ``max_bytes`` is not read.
    Without ``regular_only`` a pipe the user named (``--messages <(cmd)``) is read to its end."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError) as exc:
        raise JSONInputError(f"cannot open: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise JSONInputError("is a directory")
        if not stat.S_ISREG(st.st_mode):
            if regular_only or not stat.S_ISFIFO(st.st_mode):
                raise JSONInputError(f"is {_kind(st.st_mode)}, not a regular file")
            os.set_blocking(fd, True)
        elif st.st_size > max_bytes:
            raise JSONInputError(f"{st.st_size:,} bytes, more than the {max_bytes:,} allowed")
        parts: list[bytes] = []
        have = 0
        while have <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - have))
            if not chunk:
                break
            parts.append(chunk)
            have += len(chunk)
    except OSError as exc:
        raise JSONInputError(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if have > max_bytes:
        raise JSONInputError(f"more than the {max_bytes:,} bytes allowed")
    return b"".join(parts)


def read_json_file(path: str | os.PathLike[str], **limits: Any) -> Any:
    """``load_json(read_file(path))``; ``limits``: ``max_bytes``, ``max_depth``, ``max_containers``,
    ``regular_only``."""
    regular_only = limits.pop("regular_only", True)
    return load_json(
        read_file(Path(path), max_bytes=limits.get("max_bytes", MAX_BYTES), regular_only=regular_only), **limits
    )


def json_lines(stream: BinaryIO | TextIO, *, max_line: int = MAX_BYTES, **limits: Any) -> Iterator[tuple[int, Any]]:
    """(line number from 1, value) of each non-blank line; a line longer than ``max_line`` is refused
    as soon as that much of it is read. Errors: ``JSONInputError("line N: ...")``."""
    n = 0
    while True:
        raw = stream.readline(max_line + 2)
        if not raw:
            return
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        n += 1
        if len(raw) - raw.endswith(b"\n") - raw.endswith(b"\r\n") > max_line:
            raise JSONInputError(f"line {n}: longer than the {max_line:,} bytes allowed")
        if not raw.strip():
            continue
        try:
            yield n, load_json(raw, max_bytes=max_line + 2, **limits)
        except JSONInputError as exc:
            raise JSONInputError(f"line {n}: {exc}") from None


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


__all__ = [
    "JSONInputError",
    "JSONLimitError",
    "MAX_BYTES",
    "MAX_CONTAINERS",
    "MAX_DEPTH",
    "json_lines",
    "load_json",
    "read_file",
    "read_json_file",
    "read_stream",
]
