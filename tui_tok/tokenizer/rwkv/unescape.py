r"""RWKV token texts are stored escaped; llama.cpp unescapes each at load (``llama_unescape_rwkv_token``).

``unescape_token`` is the exact rule for one text. ``unescape_all`` gives the same bytes for a
whole vocab in a few C-level passes: calling ``unescape_token`` 65,536 times (rwkv-world) was
most of the encoder's table build, though 72 % of the texts hold no backslash at all.
It joins the texts with newlines, encodes and splits them once, and decodes only the texts with
a backslash, with Python's own escape decoder wherever every escape there is one it reads as
llama.cpp does (all of rwkv-world's).

>>> unescape_all([r"\x41\n\\", "plain", r"\'\xAB"]) == [unescape_token(t) for t in [r"\x41\n\\", "plain", r"\'\xAB"]]
True
"""

from __future__ import annotations

import codecs
import re

import numpy as np

_ESCAPE = re.compile(rb"\\(?:x(.{0,2})|(.)|\Z)", re.DOTALL)
_SIMPLE = {b"t": b"\t", b"n": b"\n", b"r": b"\r"}
_PLAIN_ESCAPES = re.compile(rb"[^\\]*(?:\\(?:x[0-9a-f]{2}|[tnr\\'\"])[^\\]*)*")
"""Text whose every escape is ``\\xHH`` in lowercase hex or ``\\t \\n \\r \\\\ \\' \\"``: there
``codecs.escape_decode`` (C) gives llama.cpp's bytes (nearly all escaped rwkv-world tokens).

Texts joined by a raw newline match it together exactly when each one does: a backslash always
starts an escape, and no escape can take in the newline (it is not an escape letter nor a hex
digit), so each text is parsed on its own."""

_decode = codecs.escape_decode  # type: ignore[attr-defined]

_LETTERS = np.zeros(256, dtype=bool)
_LETTERS[list(b"xtnr\\'\"")] = True
_HEX = np.zeros(256, dtype=bool)
_HEX[list(b"0123456789abcdef")] = True


def all_plain(data: bytes) -> bool:
    """``_PLAIN_ESCAPES.fullmatch(data)``, in numpy (the regex was slower over rwkv-world's
    escaped texts): a backslash at an even offset of its run of backslashes starts an escape
    (an odd one is the second half of ``\\\\``); each escape must be plain."""
    arr = np.frombuffer(data + b"\0\0\0", dtype=np.uint8)
    slash = arr == ord("\\")
    at = np.flatnonzero(slash)
    if not at.size:
        return True
    run_first = np.where(~slash[at - 1] | (at == 0), at, 0)  # the run's first backslash, or 0
    esc = at[((at - np.maximum.accumulate(run_first)) & 1) == 0]
    letter = arr[esc + 1]
    if not _LETTERS[letter].all():
        return False
    hexes = esc[letter == ord("x")]
    return bool(_HEX[arr[hexes + 2]].all() and _HEX[arr[hexes + 3]].all())


def _hex_digit(c: int) -> int:
    signed = c - 256 if c >= 0x80 else c
    return (signed - ord("a") + 10) if signed >= ord("a") else (signed - ord("0"))


def _unescape_one(m: re.Match[bytes]) -> bytes:
    digits, other = m.group(1), m.group(2)
    if digits is not None:
        if len(digits) < 2:
            return b""
        return bytes([((_hex_digit(digits[0]) << 4) + _hex_digit(digits[1])) & 0xFF])
    if other is None:  # a backslash at the very end
        return b""
    return _SIMPLE.get(other, other)


def _unescape_bytes(data: bytes) -> bytes:
    """``unescape_token`` on the text's UTF-8 bytes."""
    if b"\\" not in data:
        return data
    if _PLAIN_ESCAPES.fullmatch(data):  # escapes Python's own decoder reads the same way
        return _decode(data)[0]  # type: ignore[no-any-return]
    return _ESCAPE.sub(_unescape_one, data)


def unescape_token(text: str) -> bytes:
    r"""llama.cpp's ``llama_unescape_rwkv_token``: ``\\t \\n \\r``, ``\\xHH``, ``\\c`` -> c.

    The ``\\xHH`` digits go through ``c >= 'a' ? c - 'a' + 10 : c - '0'`` on a *signed*
    ``char`` (x86), modulo 256: only 0-9 and a-f mean what they say, and anything else
    (``A``-``F``, ``g``, non-ASCII bytes) is mirrored exactly. An escape cut off by the end
    of the text produces nothing. (llama.cpp's byte loop; here a regex finds the escapes.)

    >>> unescape_token(r"\xe4\xbd\xa0"), unescape_token(r"\xAB"), unescape_token(r"a\qb")
    (b'\xe4\xbd\xa0', b'"', b'aqb')
    """
    return _unescape_bytes(text.encode("utf-8", "surrogateescape"))


def unescape_all(texts: list[str]) -> list[bytes]:
    """``[unescape_token(t) for t in texts]``, in bulk (module docstring)."""
    data = "\n".join(texts).encode("utf-8", "surrogateescape")
    parts = data.split(b"\n")
    if len(parts) != len(texts):  # a newline inside some text (or no text at all)
        return list(map(unescape_token, texts))
    arr = np.frombuffer(data, dtype=np.uint8)
    slash = np.flatnonzero(arr == ord("\\"))
    if not slash.size:
        return parts
    owner = np.searchsorted(np.flatnonzero(arr == ord("\n")), slash)  # text of each backslash
    first = np.ones(owner.size, dtype=bool)
    first[1:] = owner[1:] != owner[:-1]
    which = owner[first].tolist()
    escaped = [parts[i] for i in which]
    if all_plain(b"\n".join(escaped)):
        decoded = [raw for raw, _ in map(_decode, escaped)]
    else:
        decoded = list(map(_unescape_bytes, escaped))
    for i, raw in zip(which, decoded):
        parts[i] = raw
    return parts
