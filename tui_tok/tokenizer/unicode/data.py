"""llama.cpp's Unicode 15.1 tables: code point flags, whitespace, lowercase, NFD-first, lenient UTF-8.

llama.cpp ships its own tables (src/unicode-data.cpp) and its own UTF-8 decoder; Python's
``unicodedata`` (14.0 on 3.11) and the ``regex`` module (newer Unicode) disagree with them on
thousands of code points, so exact token ids need these. The raw data is generated into
``unicode/tables.py`` by ``tools/gen_unicode_data.py``.

Does not tokenize or split: see ``pretokenize/`` and the algorithm modules.

>>> cpt_flags(ord("A")) & LETTER != 0, is_whitespace(0x3000), to_lower(ord("Σ")) == ord("σ")
(True, True, True)
>>> cpts_from_utf8(b"a\\x80b")
[97, 65533, 98]
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

import numpy as np

from tui_tok.tokenizer.unicode import tables as _t

UNDEFINED = 0x0001
NUMBER = 0x0002  # \p{N}
LETTER = 0x0004  # \p{L}
SEPARATOR = 0x0008  # \p{Z}
ACCENT_MARK = 0x0010  # \p{M}
PUNCTUATION = 0x0020  # \p{P}
SYMBOL = 0x0040  # \p{S}
CONTROL = 0x0080  # \p{C}
MASK_CATEGORIES = 0x00FF
WHITESPACE = 0x0100
LOWERCASE = 0x0200
UPPERCASE = 0x0400
NFD = 0x0800

MAX_CODEPOINTS = 0x110000

_FLAG_STARTS: list[int] = list(_t.RANGES_FLAGS[0::2])
_FLAG_VALUES: list[int] = list(_t.RANGES_FLAGS[1::2])
WHITESPACE_CPS: frozenset[int] = frozenset(_t.WHITESPACE)
_LOWER: dict[int, int] = dict(zip(_t.LOWERCASE[0::2], _t.LOWERCASE[1::2]))
_LOWER_VIEW: Mapping[int, int] = MappingProxyType(_LOWER)
_NFD_FIRST: list[int] = list(_t.RANGES_NFD[0::3])
_NFD_LAST: list[int] = list(_t.RANGES_NFD[1::3])
_NFD_VALUE: list[int] = list(_t.RANGES_NFD[2::3])


@cache
def flags_table() -> np.ndarray:
    """uint16 flags for every code point 0..0x10FFFF, as llama.cpp's ``unicode_cpt_flags_array``."""
    starts = np.array(_FLAG_STARTS, dtype=np.int64)
    values = np.array(_FLAG_VALUES, dtype=np.uint16)
    lengths = np.diff(starts)
    table = np.repeat(values[:-1], lengths).astype(np.uint16)
    assert table.shape[0] == MAX_CODEPOINTS
    table[list(WHITESPACE_CPS)] |= WHITESPACE
    table[np.array(_t.LOWERCASE[1::2], dtype=np.int64)] |= LOWERCASE
    table[np.array(_t.UPPERCASE[1::2], dtype=np.int64)] |= UPPERCASE
    table[np.array(_NFD_VALUE, dtype=np.int64)] |= NFD
    return table


def cpt_flags(cp: int) -> int:
    """Flags of one code point; beyond U+10FFFF llama.cpp answers UNDEFINED."""
    if cp >= MAX_CODEPOINTS or cp < 0:
        return UNDEFINED
    return int(flags_table()[cp])


def is_whitespace(cp: int) -> bool:
    """llama.cpp's ``\\s``: the 25 White_Space code points."""
    return cp in WHITESPACE_CPS


def to_lower(cp: int) -> int:
    """Simple lowercase mapping (no final sigma, no multi-char folds), as ``unicode_tolower``."""
    return _LOWER.get(cp, cp)


def lowercase_map() -> Mapping[int, int]:
    """The whole simple lowercase table (cp -> lowercase cp, only cps that change), read-only.

    For callers that need the inverse (which code points lower to a given one); ``to_lower``
    is the per-code-point lookup.
    """
    return _LOWER_VIEW


@cache
def nfd_ranges() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """llama.cpp's NFD-first ranges as int64 arrays ``(first, last, value)``: every cp in
    ``first[k]..last[k]`` (inclusive) maps to ``value[k]``; cps in no range map to themselves."""
    return (
        np.array(_NFD_FIRST, dtype=np.int64),
        np.array(_NFD_LAST, dtype=np.int64),
        np.array(_NFD_VALUE, dtype=np.int64),
    )


def nfd_first(cp: int) -> int:
    """First code point of the NFD decomposition, as ``unicode_cpts_normalize_nfd`` (not real NFD)."""
    i = bisect.bisect_right(_NFD_FIRST, cp) - 1
    if i >= 0 and _NFD_FIRST[i] <= cp <= _NFD_LAST[i]:
        return _NFD_VALUE[i]
    return cp


@cache
def category_class(flag: int) -> str:
    """A regex character-class body (no brackets) of every code point whose category is ``flag``.

    Use with the ``regex`` module, e.g. ``f"[{category_class(LETTER)}]"``, to match exactly
    llama.cpp's ``\\p{L}``. Code points beyond the table are never included.

    >>> import regex
    >>> bool(regex.fullmatch(f"[{category_class(NUMBER)}]+", "12٣"))
    True
    """
    parts: list[str] = []
    run_start: int | None = None
    for i, start in enumerate(_FLAG_STARTS[:-1]):
        has = bool(_FLAG_VALUES[i] & flag)
        if has and run_start is None:
            run_start = start
        elif not has and run_start is not None:
            parts.append(_range(run_start, start - 1))
            run_start = None
    if run_start is not None:
        parts.append(_range(run_start, MAX_CODEPOINTS - 1))
    return "".join(parts)


def _range(lo: int, hi: int) -> str:
    return f"\\U{lo:08X}" if lo == hi else f"\\U{lo:08X}-\\U{hi:08X}"


def cpts_from_utf8(data: bytes) -> list[int]:
    """llama.cpp's lenient UTF-8 decoder (unicode.cpp:30-65, 1130-1145).

    Valid UTF-8 decodes as usual. A bad lead byte or a truncated sequence gives one U+FFFD
    and advances one byte. There are no overlong, surrogate or range checks: ``C0 80`` gives
    U+0000, ``ED A0 80`` gives U+D800 and ``F4 90 80 80`` gives 0x110000.

    >>> cpts_from_utf8(b"\\xc0\\x80\\xe2\\x82A")
    [0, 65533, 65533, 65]
    """
    try:
        return list(map(ord, data.decode("utf-8")))
    except UnicodeDecodeError:
        return decode_spans(data)[0]


def decode_spans(data: bytes) -> tuple[list[int], list[int]]:
    """``cpts_from_utf8`` with where each code point starts (plus the end) in ``data``."""
    cps: list[int] = []
    src: list[int] = []
    n = len(data)
    i = 0
    while i < n:
        src.append(i)
        b0 = data[i]
        if b0 < 0x80:
            cps.append(b0)
            i += 1
            continue
        need = 1 if b0 & 0xE0 == 0xC0 else 2 if b0 & 0xF0 == 0xE0 else 3 if b0 & 0xF8 == 0xF0 else -1
        if need < 0 or i + need >= n or any(data[i + k] & 0xC0 != 0x80 for k in range(1, need + 1)):
            cps.append(0xFFFD)  # a bad lead byte or a truncated sequence
            i += 1
            continue
        cp = b0 & (0x1F, 0x0F, 0x07)[need - 1]
        for k in range(1, need + 1):
            cp = (cp << 6) | (data[i + k] & 0x3F)
        cps.append(cp)
        i += need + 1
    src.append(n)
    return cps, src


def cpt_to_utf8(cp: int) -> bytes:
    """Encode one code point as llama.cpp does (surrogates allowed; > U+10FFFF is an error).

    >>> cpt_to_utf8(0xD800)
    b'\\xed\\xa0\\x80'
    """
    if cp <= 0x7F:
        return bytes((cp,))
    if cp <= 0x7FF:
        return bytes((0xC0 | (cp >> 6), 0x80 | (cp & 0x3F)))
    if cp <= 0xFFFF:
        return bytes((0xE0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F)))
    if cp <= 0x10FFFF:
        return bytes((0xF0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3F), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F)))
    raise ValueError(f"invalid code point 0x{cp:X}")
