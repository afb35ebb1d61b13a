"""WPM's per-code-point classes and its word cutter, on code points or straight on UTF-8 bytes.

llama.cpp's ``llm_tokenizer_wpm_session::preprocess`` gives each code point one of four
outcomes (``_SPACE`` ends the word, ``_DROP`` vanishes, ``_ALONE`` is a word by itself,
``_KEEP`` is appended); see ``reference.py`` for the rules. A class is computed from the flags
table only for the code points a text holds (``classes_of``): a table of all 1.1M code points
cost longer at load than llama.cpp's whole load, and ASCII text needs 256 entries.

``loose_word_spans`` cuts valid UTF-8 without decoding it to code points: every byte gets a
class, so words come out as byte ranges; only the non-ASCII lead bytes are decoded, in whole
arrays.

A fast path: what it computes equals ``wpm/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).

>>> word_classes("Hi, 中x\\u200b!")
'kki ikdi'
>>> starts, ends, ascii_drop = loose_word_spans("a中b, ö\\u200b!".encode())
>>> starts.tolist(), ends.tolist(), ascii_drop
([0, 1, 4, 5, 7, 12], [1, 4, 5, 6, 12, 13], False)
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tui_tok.tokenizer.unicode.data import (
    ACCENT_MARK,
    CONTROL,
    PUNCTUATION,
    SYMBOL,
    WHITESPACE,
    flags_table,
    nfd_ranges,
)
from tui_tok.tokenizer.wpm.reference import CJK_RANGES  # llama.cpp's is_chinese_char: one copy

# One class byte per code point: the four outcomes of llama.cpp's per-cp loop.
_SPACE = ord(" ")  # whitespace: ends the word
_DROP = ord("d")  # skipped, the word goes on
_ALONE = ord("i")  # a word by itself
_KEEP = ord("k")  # appended to the current word


def nfd_first_of(cps: np.ndarray) -> np.ndarray:
    """The first code point of each one's NFD (``unicode.data.nfd_first``), as int64: a binary
    search in llama.cpp's 1,828 sorted, disjoint ranges (a table of every code point held 4.4 MB
    for as long as the process lived; a text's non-ASCII characters are few)."""
    firsts, lasts, values = nfd_ranges()
    points = cps.astype(np.int64)
    at = np.searchsorted(firsts, points, side="right") - 1
    np.maximum(at, 0, out=at)
    inside = (points >= firsts[at]) & (points <= lasts[at])
    return np.where(inside, values[at], points)


def _is_cjk(cps: np.ndarray) -> np.ndarray:
    """Whether each code point is in llama.cpp's ``is_chinese_char`` ranges (no 1.1 MB table)."""
    out = np.zeros(len(cps), dtype=bool)
    for lo, hi in CJK_RANGES:
        out |= (cps >= lo) & (cps <= hi)
    return out


def classes_of(cps: np.ndarray, strip_accents: bool) -> np.ndarray:
    """uint8 class (space/drop/alone/keep) of each code point (all below U+110000). With
    ``strip_accents`` the flags are those of the first code point of its NFD, as llama.cpp does."""
    mapped = nfd_first_of(cps) if strip_accents else cps.astype(np.int64)
    flags = flags_table()[mapped]
    drop = (mapped == 0) | (mapped == 0xFFFD) | ((flags & CONTROL) != 0)
    if strip_accents:
        drop |= (flags & ACCENT_MARK) != 0
    alone = ((flags & PUNCTUATION) != 0) | (((flags & SYMBOL) != 0) & (mapped < 0x7F)) | _is_cjk(mapped)
    out = np.full(len(cps), _KEEP, dtype=np.uint8)
    out[alone] = _ALONE
    out[drop] = _DROP
    out[(flags & WHITESPACE) != 0] = _SPACE
    return out


@cache
def ascii_classes(strip_accents: bool) -> bytes:
    """``bytes.translate`` table giving a byte its class: ASCII bytes their own; continuation
    bytes ``_SPACE``; lead bytes ``_KEEP`` (``loose_word_spans`` overwrites those)."""
    low = classes_of(np.arange(128, dtype=np.int32), strip_accents).tobytes()
    return low + bytes([_SPACE]) * 64 + bytes([_KEEP]) * 64


def word_classes(text: str, *, strip_accents: bool = True) -> str:
    """One class letter per character: ' ' space, 'd' dropped, 'i' alone, 'k' kept (for tests/UI)."""
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    return classes_of(cps, strip_accents).tobytes().decode("ascii")


def loose_word_spans(text: bytes, strip_accents: bool = True) -> tuple[np.ndarray, np.ndarray, bool]:
    """Start and end byte of every word of valid UTF-8 ``text``, without decoding the text; a
    word may take in dropped characters at its end, which changes no token: normalising drops
    them again. Also whether an ASCII character is dropped
    (then an ASCII word may need normalising).

    Every byte gets a class: a kept or dropped character's continuation bytes share its class,
    any other's are spaces (a character alone is cut at its lead byte, then extended). Then each
    run of dropped bytes takes the class of the byte before it (kept stays kept, anything else
    becomes a space), so words are runs of kept bytes, plus each character alone.
    """
    table = ascii_classes(strip_accents)
    marks = text.translate(table)
    classes = np.frombuffer(marks, dtype=np.uint8)
    any_drop = ascii_drop = bytes([_DROP]) in marks
    raw: np.ndarray | None = None
    if not text.isascii():
        classes = classes.copy()
        raw = np.frombuffer(text + bytes(3), dtype=np.uint8)
        lead = np.flatnonzero(raw >= 0xC0)
        if 4 * len(lead) > len(text):
            # mostly characters of 3-4 bytes: the codec decodes them faster than numpy (CJK
            # text); for fewer its 4 bytes a character cost more
            points = np.frombuffer(text.decode("utf-8").encode("utf-32-le"), dtype="<u4")
            cps = points[points >= 0x80]
            size = 2 + (cps >= 0x800).astype(np.int32) + (cps >= 0x10000)
        else:  # all four bytes as if 4 long, then drop the bytes past the character's own
            b0 = raw[lead].astype(np.int32)
            size = 2 + (b0 >= 0xE0).astype(np.int32) + (b0 >= 0xF0)
            cps = (b0 & (0xFF >> (size + 1))) << 18
            for k, shift in ((1, 12), (2, 6), (3, 0)):
                cps |= (raw[lead + k].astype(np.int32) & 0x3F) << shift
            cps >>= 6 * (4 - size)
        cls = classes_of(cps, strip_accents)
        classes[lead] = cls
        dropped = cls == _DROP
        any_drop = any_drop or bool(dropped.any())
        whole = (cls == _KEEP) | dropped  # these characters' other bytes share their class
        at, n, c = lead[whole], size[whole], cls[whole]
        classes[at + 1] = c
        three, four = n >= 3, n == 4
        classes[at[three] + 2] = c[three]
        classes[at[four] + 3] = c[four]
    if any_drop:
        if raw is None:
            classes = classes.copy()
        d = np.flatnonzero(classes == _DROP)
        new_run = np.ones(len(d), dtype=bool)
        new_run[1:] = d[1:] != d[:-1] + 1
        before = d[new_run] - 1  # the byte before each run of dropped bytes (-1: text start)
        prev = np.where(before >= 0, classes[np.maximum(before, 0)], _SPACE)
        fill = np.where(prev == _KEEP, _KEEP, _SPACE).astype(np.uint8)
        classes[d] = fill[np.cumsum(new_run) - 1]
    n_bytes = len(classes)
    padded = np.zeros(n_bytes + 2, dtype=bool)  # kept, with a not-kept byte at each end
    padded[1:-1] = classes == _KEEP
    kept = padded[1:-1]
    alone = classes == _ALONE
    starts = np.flatnonzero(alone | (kept > padded[:-2]))  # alone, or kept after not kept
    last = alone | (kept > padded[2:])
    if raw is not None:  # a character alone ends on its last byte, not its lead byte
        multi = cls == _ALONE
        if multi.any():
            lead_alone = lead[multi]
            last[lead_alone] = False
            last[lead_alone + size[multi] - 1] = True
    return starts, np.flatnonzero(last) + 1, ascii_drop
