"""Emulation of llama.cpp's std::regex fallback (unicode.cpp:1236-1389).

Two paths, chosen per regex string:
- collapsed: the regex names a Unicode category (``\\p{L}``, ``\\p{Lu}`` ...). llama.cpp maps each
  code point to one byte (ASCII kept, whitespace -> 0x0B, N/L/P/M/S -> 0xD1-0xD5, anything else
  0xD0) and rewrites every ``\\p{X}`` into that marker plus its ASCII members, so all ``\\p{Lx}``
  mean any letter. We do the same rewriting and run it with ``re`` on bytes (ASCII ``\\s``/``\\d``,
  as ECMAScript in the C locale).
- wregex: no category; code points as they are, except non-ASCII whitespace -> U+000B.
  ``\\s``/``\\d`` are ASCII-only (``re.ASCII``).
Both are ECMAScript leftmost-first backtracking, as Python's ``re``; ``$`` becomes ``\\Z`` (the
chunk end, not before a final newline). Output per chunk: [gap][match (even empty)]...[tail gap].

Does not hold the custom splitters: see ``fast.py`` and ``reference.py``.
"""

from __future__ import annotations

import re
import warnings
from functools import cache

import numpy as np

from tui_tok.tokenizer.unicode import data as ud

_UCAT_ENUM = {
    "\\p{N}": ud.NUMBER,
    "\\p{L}": ud.LETTER,
    "\\p{P}": ud.PUNCTUATION,
    "\\p{M}": ud.ACCENT_MARK,
    "\\p{S}": ud.SYMBOL,
    "\\p{Lu}": ud.LETTER,
    "\\p{Ll}": ud.LETTER,
    "\\p{Lt}": ud.LETTER,
    "\\p{Lm}": ud.LETTER,
    "\\p{Lo}": ud.LETTER,
}
_UCAT_CPT = {ud.NUMBER: 0xD1, ud.LETTER: 0xD2, ud.PUNCTUATION: 0xD3, ud.ACCENT_MARK: 0xD4, ud.SYMBOL: 0xD5}
_UCAT_MAP = {
    ud.NUMBER: b"\x30-\x39",
    ud.LETTER: b"\x41-\x5a\x61-\x7a",
    ud.PUNCTUATION: b"\x21-\x23\x25-\x2a\x2c-\x2f\x3a-\x3b\x3f-\x40\\\x5b-\\\x5d\x5f\\\x7b\\\x7d",
    ud.ACCENT_MARK: b"",
    ud.SYMBOL: b"\\\x24\\\x2b\x3c-\x3e\x5e\x60\\\x7c\\\x7e",
}


def uses_collapsed(regex_expr: str) -> bool:
    """llama.cpp's test: the string contains one of the category escapes it knows."""
    return any(ucat in regex_expr for ucat in _UCAT_ENUM)


def collapse_regex(regex_expr: str) -> bytes:
    """The byte pattern llama.cpp builds for the collapsed text (U:1316-1360), verbatim logic.

    >>> collapse_regex("[^\\\\s\\\\p{L}]|\\\\p{N}")
    b'[^\\\\s\\xd2A-Za-z]|[\\xd10-9]'
    """
    if not regex_expr.isascii():
        raise ValueError("Regex includes both unicode categories and non-ASCII characters - not supported")
    out = bytearray()
    inside = False
    i = 0
    n = len(regex_expr)
    while i < n:
        ch = regex_expr[i]
        if ch == "[" and (i == 0 or regex_expr[i - 1] != "\\"):
            out += b"["
            inside = True
            i += 1
            continue
        if inside and ch == "]" and regex_expr[i - 1] != "\\":
            out += b"]"
            inside = False
            i += 1
            continue
        if ch == "\\" and i + 3 < n and regex_expr[i + 1] == "p" and regex_expr[i + 2] == "{":
            closing = regex_expr.find("}", i + 3)
            if closing != -1 and closing <= i + 10:
                pat = regex_expr[i : closing + 1]
                if pat in _UCAT_ENUM:
                    flag = _UCAT_ENUM[pat]
                    if not inside:
                        out += b"["
                    out.append(_UCAT_CPT[flag])
                    out += _UCAT_MAP[flag]
                    if not inside:
                        out += b"]"
                    i = closing + 1
                    continue
        out += ch.encode("ascii")
        i += 1
    return bytes(out)


def _dollar_to_end(pattern: str) -> str:
    """ECMAScript ``$`` (no multiline) is the end of input; Python's also matches before a final \\n."""
    out: list[str] = []
    escaped = inside = False
    for ch in pattern:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "[" and not inside:
            inside = True
        elif ch == "]" and inside:
            inside = False
        elif ch == "$" and not inside:
            out.append("\\Z")
            continue
        out.append(ch)
    return "".join(out)


@cache
def compile_collapsed(regex_expr: str) -> re.Pattern[bytes]:
    """The collapsed pattern, ready for ``collapse_text`` output (``simplify``-ed: same spans)."""
    pattern = _dollar_to_end(collapse_regex(regex_expr).decode("latin-1")).encode("latin-1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(simplify(pattern))


_CLASS = rb"\[(?:\\.|[^\]\\])*\]"
_LOOK_THEN_CLASS = re.compile(rb"(?<!\\)\(\?=(" + _CLASS + rb")\)\((" + _CLASS + rb")\)")
_OPEN_GROUP = re.compile(rb"(" + _CLASS + rb"|\\.)|\((?!\?)")
_BACKREF = re.compile(rb"\\[1-9]|\(\?P[=>]")


def simplify(pattern: bytes) -> bytes:
    """A byte pattern with the same match spans that Python's ``re`` runs faster.

    - ``(?=[A])([B])`` (one character in both classes, as tekken's "a letter but not a-z"
      is written) becomes the one class of their common bytes;
    - capturing groups become non-capturing (only spans are used, and a pattern with
      backreferences is left alone).
    Classes are compared byte by byte, so any class syntax ``re`` accepts is handled.
    """
    if _BACKREF.search(pattern):
        return pattern

    def intersect(m: re.Match[bytes]) -> bytes:
        first, second = re.compile(m.group(1)), re.compile(m.group(2))
        common = [b for b in range(256) if first.fullmatch(bytes([b])) and second.fullmatch(bytes([b]))]
        if not common:
            return rb"(?!)"
        return b"[" + b"".join(re.escape(bytes([b])) for b in common) + b"]"

    pattern = _LOOK_THEN_CLASS.sub(intersect, pattern)
    return _OPEN_GROUP.sub(lambda m: m.group(1) or b"(?:", pattern)


@cache
def compile_wide(regex_expr: str) -> re.Pattern[str]:
    """The wregex pattern on ``wide_text`` output (ASCII ``\\s``/``\\d``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(_dollar_to_end(regex_expr), re.ASCII)


@cache
def _collapse_table() -> np.ndarray:
    """llama.cpp's collapsed byte per code point (a byte per possible flags value, then one gather)."""
    v = np.arange(1 << 16, dtype=np.uint32)
    lut = np.full(1 << 16, 0xD0, dtype=np.uint8)
    for flag, marker in _UCAT_CPT.items():
        lut[(v & ud.MASK_CATEGORIES) == flag] = marker
    lut[(v & ud.WHITESPACE) != 0] = 0x0B
    table = lut[ud.flags_table()]
    table[:128] = np.arange(128, dtype=np.uint8)
    return table


def collapse_text(text: str) -> bytes:
    """llama.cpp's ``text_collapsed``: one byte per code point.

    >>> collapse_text("a\\u00e9\\u3000\\u0661!")
    b'a\\xd2\\x0b\\xd1!'
    """
    if text.isascii():
        return text.encode("ascii")
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return _collapse_table()[cps].tobytes()


_WIDE_WS = re.compile("[" + "".join(re.escape(chr(cp)) for cp in sorted(ud.WHITESPACE_CPS) if cp > 0x7F) + "]")


def wide_text(text: str) -> str:
    """The wregex input: non-ASCII whitespace replaced by U+000B (U:1367-1372)."""
    if text.isascii():
        return text
    return _WIDE_WS.sub("\x0b", text)


def context_free(pattern: str | bytes) -> bool:
    """True when a match inside a chunk cannot depend on text before the chunk start.

    Python's ``re`` with ``pos`` still lets ``^``, ``\\A``, ``\\b``, ``\\B`` and lookbehinds see
    the real string start and the characters before ``pos``; without them, a chunk's pieces are
    a function of its own characters (``endpos`` already hides what follows), so they can be
    memoised per chunk text. Conservative: a ``^`` outside a class, or any of the escapes (even
    inside a class), says no.
    """
    if isinstance(pattern, bytes):
        pattern = pattern.decode("latin-1")
    escaped = inside = False
    prev = ""
    for ch in pattern:
        if escaped:
            if ch in "AbB":
                return False
            escaped = False
        elif ch == "\\":
            escaped = True
        elif inside:
            inside = ch != "]" or prev == "["
        elif ch == "[":
            inside = True
        elif ch == "^":
            return False
        prev = ch
    return "(?<" not in pattern
