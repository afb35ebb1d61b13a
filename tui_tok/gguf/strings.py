"""Fast decoding of GGUF string arrays (150k-500k entries in a vocab).

A string array is ``count`` times ``[u64 length][bytes]``: each string's position
depends on every length before it, so a plain loop in CPython pays the interpreter per
string, most of a big vocab's load (benchmarks/NOTES.md). Instead:

1. *Candidates*: every byte offset whose u64 is < 256 (numpy, over an unaligned
   strided view). Every length field of a string shorter than 256 bytes is one;
   text rarely holds 7 zero bytes in a row, so few false ones.
2. *Chain*: from the first field, field ``i``'s successor is at ``K[i] + 8 + len``.
   Where that equals the next candidate (almost always), runs of strings are taken
   whole; elsewhere (a false candidate in between, or a string of 256+ bytes) one
   step is followed by hand. Only real lengths are ever followed, so the result is
   exact whatever the candidates were.
3. *Decode*: 7 bytes of each length field are dropped, its top byte (0 for any
   length that fits in a file) stays as a NUL separator; when the strings themselves
   hold no NUL the whole run is decoded at once ('surrogateescape', so invalid UTF-8
   keeps its bytes; an ASCII separator never joins a multi-byte sequence, so this
   equals decoding each string) and split on NUL. Otherwise (e.g. RWKV's raw byte
   tokens) each string is decoded on its own.

Every length is checked against the bytes left, and against ``MAX_STRING_BYTES`` and
``MAX_HEADER_BYTES`` (sizes can be claims: a server's Content-Range, a sparse file), before it is
used: a lying length ends the fast path and the plain loop reports it (``fail`` raises). The scan
looks at most ``_MAX_WINDOW`` bytes at a time: its arrays cost about 25 bytes per byte scanned
when every offset is a candidate (a run of zero bytes), so a hostile array costs a bounded window,
not 25 times the file; and candidates that dense hand the array to the plain loop (steps by hand
would cost ten times more).

On request the decoded text is kept too, as ``"\\0" + "\\0".join(strings) + "\\0"`` (when no
string holds NUL): step 3 had it before splitting, and a caller that searches the whole array
(the merge-rank search) would otherwise join 150k-500k strings again.

Leaves out: everything else in a GGUF file (reader.py).
"""

from __future__ import annotations

import codecs
import struct
from collections.abc import Callable
from typing import Any, Literal, NoReturn

import numpy as np

FailFn = Callable[[str, int], NoReturn]
MoreFn = Callable[[int], NoReturn]
"""Asks the caller for the bytes up to an offset (raises: the caller reads more and parses again)."""

MAX_STRING_BYTES = 16 * 1024 * 1024
"""One string (a chat template is tens of KB, a token a few bytes)."""
MAX_HEADER_BYTES = 256 * 1024 * 1024
"""Where the metadata and tensor index must end: the largest vocab file ends its metadata at 15 MB."""
_FAST_MIN = 512  # below this, the plain loop is as fast
_MAX_WINDOW = 4 * 1024 * 1024
# The scan window holds the strings still wanted at this many bytes each (then a measured average
# times _WINDOW_SLACK): every byte in it is scanned, so a short guess (one more round) is cheaper
# than a long one. Real vocabs: 13-21 bytes per string, length field included.
_FIRST_GUESS = 16.0
_WINDOW_SLACK = 1.05
_U64 = {False: struct.Struct("<Q").unpack_from, True: struct.Struct(">Q").unpack_from}


def read_string_array(
    buf: Any,
    pos: int,
    count: int,
    end: int,
    *,
    big_endian: bool,
    fail: FailFn,
    avail: int | None = None,
    more: MoreFn | None = None,
) -> tuple[list[str], int]:
    """Decode ``count`` strings starting at ``pos`` (no byte at or after ``end`` is read).

    ``end`` is where the file ends (lengths past it are errors); ``avail`` (default ``end``) is
    how much of it ``buf`` holds: a string past it calls ``more(offset needed)``, which raises.
    Returns the strings and the offset just past the last one.
    """
    strings, _, pos = read_string_array_text(
        buf, pos, count, end, big_endian=big_endian, fail=fail, text=False, avail=avail, more=more
    )
    return strings, pos


def read_string_array_text(
    buf: Any,
    pos: int,
    count: int,
    end: int,
    *,
    big_endian: bool,
    fail: FailFn,
    text: bool = True,
    avail: int | None = None,
    more: MoreFn | None = None,
) -> tuple[list[str], str | None, int]:
    """``read_string_array``, and with ``text`` also ``"\\0" + "\\0".join(strings) + "\\0"``
    (None when a string holds NUL, or for no strings, or without ``text``)."""
    if avail is None:
        avail = end
    if count < _FAST_MIN:
        out, pos = read_strings_plain(buf, pos, count, end, big_endian=big_endian, fail=fail, avail=avail, more=more)
        return out, _joined(out) if text and out else None, pos
    out = []
    runs: list[str] | None = [] if text else None  # each run's "\0s\0s..." text
    bytes_per_string = _FIRST_GUESS / _WINDOW_SLACK
    while len(out) < count:
        remaining = count - len(out)
        found = None
        if remaining >= _FAST_MIN:
            window_end = min(
                avail,
                pos + int(remaining * bytes_per_string * _WINDOW_SLACK) + 65536,
                pos + _MAX_WINDOW,
                MAX_HEADER_BYTES,
            )
            found = _chain(buf, pos, window_end, remaining, big_endian=big_endian)
        if not found:  # the last few, a first string that is long or broken (reports errors), or all when dense
            some, pos = read_strings_plain(
                buf,
                pos,
                remaining if remaining < _FAST_MIN or found is False else 1,
                end,
                big_endian=big_endian,
                fail=fail,
                avail=avail,
                more=more,
            )
            out += some
            run_text = _joined(some) if runs is not None else None
            run_text = run_text[:-1] if run_text is not None else None
        else:
            fields, stop = found
            decoded, run_text = _decode(buf, fields, stop, big_endian=big_endian)
            if out:
                out += decoded
            else:  # the first (usually by far the largest) run: no copy, no refcount pass over it
                out = decoded
            bytes_per_string = max(9.0, (stop - pos) / len(fields))
            pos = stop
        if runs is not None:
            if run_text is None:
                runs = None
            else:
                runs.append(run_text)
    if runs is None:
        return out, None, pos
    runs.append("\0")
    return out, "".join(runs), pos  # one copy of the text


def skip_string_array(
    buf: Any,
    pos: int,
    count: int,
    end: int,
    *,
    big_endian: bool,
    fail: FailFn,
    avail: int | None = None,
    more: MoreFn | None = None,
) -> int:
    """The offset just past ``count`` strings at ``pos``, none decoded (memory: the scan's arrays,
    about 16 bytes a string, not the strings themselves); checks as ``read_string_array`` does."""
    if avail is None:
        avail = end
    left = count
    while left:
        found = None
        if left >= _FAST_MIN:
            found = _chain(
                buf,
                pos,
                min(avail, pos + left * 24 + 65536, pos + _MAX_WINDOW, MAX_HEADER_BYTES),
                left,
                big_endian=big_endian,
            )
        if not found:
            n = left if left < _FAST_MIN or found is False else 1
            pos = _skip_plain(buf, pos, n, end, big_endian=big_endian, fail=fail, avail=avail, more=more)
            left -= n
        else:
            fields, pos = found
            left -= len(fields)
    return pos


def _skip_plain(
    buf: Any, pos: int, count: int, end: int, *, big_endian: bool, fail: FailFn, avail: int, more: MoreFn | None
) -> int:
    unpack = _U64[big_endian]
    for _ in range(count):
        if avail - pos < 8:
            if end - pos < 8 or more is None:
                fail(f"string length field needs 8 bytes but only {max(end - pos, 0)} are left in the file", pos)
            more(pos + 8)
        (n,) = unpack(buf, pos)
        pos += 8
        _check_length(n, pos, end, fail)
        if n > avail - pos and more is not None:
            more(pos + n)
        pos += n
    return pos


def _check_length(n: int, pos: int, end: int, fail: FailFn) -> None:
    """A string of ``n`` bytes at ``pos`` (just past its length field) fits the file and the caps."""
    if n > end - pos:
        fail(f"string length {n} exceeds the {end - pos} bytes left in the file", pos - 8)
    if n > MAX_STRING_BYTES:
        fail(f"string length {n} is more than the {MAX_STRING_BYTES} bytes a string may have", pos - 8)
    if pos + n > MAX_HEADER_BYTES:
        fail(
            f"string of {n} bytes would end the metadata at byte {pos + n}, past the {MAX_HEADER_BYTES} "
            "bytes the metadata and tensor index may take",
            pos - 8,
        )


def _joined(strings: list[str]) -> str | None:
    """``"\\0" + "\\0".join(strings) + "\\0"``, or None when a string holds NUL."""
    joined = "\0" + "\0".join(strings) + "\0"
    return joined if joined.count("\0") == len(strings) + 1 else None


def read_strings_plain(
    buf: Any,
    pos: int,
    count: int,
    end: int,
    *,
    big_endian: bool,
    fail: FailFn,
    avail: int | None = None,
    more: MoreFn | None = None,
) -> tuple[list[str], int]:
    """The obvious loop; also the one that reports where a length lies."""
    unpack = _U64[big_endian]
    out: list[str] = []
    append = out.append
    if avail is None:
        avail = end
    for _ in range(count):
        if avail - pos < 8:
            if end - pos < 8 or more is None:
                fail(f"string length field needs 8 bytes but only {max(end - pos, 0)} are left in the file", pos)
            more(pos + 8)
        (n,) = unpack(buf, pos)
        pos += 8
        _check_length(n, pos, end, fail)
        if n > avail - pos and more is not None:
            more(pos + n)
        append(str(buf[pos : pos + n], "utf-8", "surrogateescape"))
        pos += n
    return out, pos


def _chain(
    buf: Any, start: int, window_end: int, limit: int, *, big_endian: bool
) -> tuple[np.ndarray, int] | None | Literal[False]:
    """Field offsets of up to ``limit`` consecutive complete strings in [start, window_end).

    Returns (absolute field offsets, offset after the last string), None when not even the
    first string lies whole in the window, or False when the candidates are too dense to chain
    (a run of zero bytes makes every offset one, and each would be a step by hand, ten times the
    plain loop's cost): the caller reads the rest with the plain loop.
    """
    size = window_end - start
    if size < 8:
        return None
    u = np.ndarray((size - 7,), dtype=">u8" if big_endian else "<u8", buffer=buf, offset=start, strides=(1,))
    cand = np.flatnonzero(u < 256)
    nxt = cand + 8 + u[cand].astype(np.int64)
    n_cand = int(cand.size)
    break_at = np.flatnonzero(nxt[:-1] != cand[1:])
    if n_cand > 4096 and 2 * break_at.size > n_cand:
        return False
    breaks = break_at.tolist()
    breaks.append(n_cand - 1)
    pieces: list[np.ndarray] = []
    taken = 0
    b = 0
    q = 0  # offset of the next real length field
    while taken < limit and q + 8 <= size:
        t = int(np.searchsorted(cand, q))
        if t == n_cand or int(cand[t]) != q:  # a string of 256+ bytes: one step by hand
            length = int(u[q])
            if length > size - q - 8:
                break
            pieces.append(np.array([q], dtype=np.int64))
            taken += 1
            q += 8 + length
            continue
        while breaks[b] < t:
            b += 1
        e = breaks[b]  # candidates t..e are consecutive real fields
        last = min(e, t + limit - taken - 1)
        if int(nxt[last]) > size:  # only possible for e: its string is cut by the window
            last -= 1
        if last < t:
            break
        pieces.append(cand[t : last + 1])
        taken += last - t + 1
        q = int(nxt[last])
        if last < e and taken < limit:  # stopped early by the window
            break
    if taken == 0:
        return None
    return np.concatenate(pieces) + start, q + start


def _decode(buf: Any, fields: np.ndarray, stop: int, *, big_endian: bool) -> tuple[list[str], str | None]:
    """Decode the strings whose length fields are at ``fields`` (the last ends at ``stop``); with
    them ``"\\0s0\\0s1..."`` when no string holds NUL (the text they were split from), else None."""
    first = int(fields[0])
    seg = np.frombuffer(buf, dtype=np.uint8, count=stop - first, offset=first)
    rel = fields - first
    keep = np.ones(seg.size, dtype=bool)
    top = 0 if big_endian else 7
    for j in range(8):  # drop 7 bytes of each length field; its top byte (always 0) stays as separator
        if j != top:
            keep[rel + j] = False
    blob = seg[keep]
    del seg
    n = len(fields)
    if int(np.count_nonzero(blob == 0)) == n:  # no NUL inside any string
        text = codecs.utf_8_decode(blob, "surrogateescape", True)[0]  # type: ignore[arg-type]
        parts = text.split("\0")
        if len(parts) == n + 1:
            del parts[0]
            return parts, text
    starts = (fields + 8).tolist()
    ends = np.append(fields[1:], stop).tolist()
    return [str(buf[s:e], "utf-8", "surrogateescape") for s, e in zip(starts, ends)], None
