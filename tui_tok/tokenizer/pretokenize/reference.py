"""Literal ports of llama.cpp's custom splitters (unicode.cpp:215-1048), one code point at a time.

These are the oracles the fast forms are tested against (``fast.py`` patterns for GPT2, LLAMA3,
QWEN2, QWEN35 and Kimi-K2; ``split._digit_groups`` for the digit splitter; NEWLINES needs none:
it is ``\\n+|[^\\n]+``). They are slow (a Python loop per code point) and mirror the C++ line by
line, not cleverly; production code does not call them.

Each takes the code points of the whole text and the chunk lengths, and returns piece lengths,
like the C++ ``std::vector<size_t>`` offsets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from tui_tok.tokenizer.unicode import data as ud

OUT_OF_RANGE = 0xFFFFFFFF


def _flags_of(cps: Sequence[int]) -> list[int]:
    table = ud.flags_table()
    arr = np.array(cps, dtype=np.int64)
    out = np.full(arr.shape, ud.UNDEFINED, dtype=np.int64)
    ok = arr < ud.MAX_CODEPOINTS
    out[ok] = table[arr[ok]]
    return cast("list[int]", out.tolist())  # numpy's stubs: any-shape tolist() typed as 0-d


class _Chunk:
    """The lambdas every C++ splitter defines: bounded cpt/flags access and ``_add_token``."""

    def __init__(self, cps: Sequence[int], flags: Sequence[int], ini: int, end: int, out: list[int]) -> None:
        self.cps, self.flags, self.ini, self.end, self.out = cps, flags, ini, end, out
        self.prev_end = ini

    def cpt(self, pos: int) -> int:
        return self.cps[pos] if self.ini <= pos < self.end else OUT_OF_RANGE

    def fl(self, pos: int) -> int:
        return self.flags[pos] if self.ini <= pos < self.end else 0

    def add(self, end: int) -> int:
        assert self.prev_end <= end <= self.end
        n = end - self.prev_end
        if n > 0:
            self.out.append(n)
        self.prev_end = end
        return n


def _run(cps: Sequence[int], offsets: Sequence[int], body: Callable[[_Chunk], None]) -> list[int]:
    flags = _flags_of(cps)
    out: list[int] = []
    start = 0
    for offset in offsets:
        body(_Chunk(cps, flags, start, start + offset, out))
        start += offset
    return out


def _is(flags: int, flag: int) -> bool:
    return bool(flags & flag)


WS, L, N, M = ud.WHITESPACE, ud.LETTER, ud.NUMBER, ud.ACCENT_MARK
_ONE = {ord("s"), ord("t"), ord("m"), ord("d")}
_TWO = {(ord("r"), ord("e")), (ord("v"), ord("e")), (ord("l"), ord("l"))}


def _contraction(c: _Chunk, pos: int, *, lower: bool) -> int:
    """Length of a contraction at ``pos`` (0 if none), as the splitters test it."""
    low = ud.to_lower if lower else (lambda cp: cp)
    if c.cpt(pos) == ord("'") and pos + 1 < c.end:
        nxt = low(c.cpt(pos + 1))
        if nxt in _ONE:
            return 2
        if pos + 2 < c.end and (nxt, low(c.cpt(pos + 2))) in _TWO:
            return 3
    return 0


def _whitespace(c: _Chunk, pos: int, *, newlines: bool) -> int:
    """The shared whitespace tail; returns the new position."""
    n = 0
    last_rn = 0
    while _is(c.fl(pos + n), WS):
        if newlines and c.cpt(pos + n) in (0x0D, 0x0A):
            last_rn = pos + n + 1
        n += 1
    if last_rn > 0:
        c.add(last_rn)
        return last_rn
    if n > 1 and c.cpt(pos + n) != OUT_OF_RANGE:
        c.add(pos + n - 1)
        return pos + n - 1
    if n > 0:
        c.add(pos + n)
        return pos + n
    c.add(pos + 1)
    return pos + 1


def gpt2(cps: Sequence[int], offsets: Sequence[int]) -> list[int]:
    """``unicode_regex_split_custom_gpt2``."""

    def body(c: _Chunk) -> None:
        pos = c.ini
        while pos < c.end:
            cpt, flags = c.cpt(pos), c.fl(pos)
            if k := _contraction(c, pos, lower=False):
                c.add(pos + k)
                pos += k
                continue
            flags2 = c.fl(pos + 1) if cpt == 0x20 else flags
            for cat in (L, N):
                if _is(flags2, cat):
                    pos += cpt == 0x20
                    while _is(flags2, cat):
                        pos += 1
                        flags2 = c.fl(pos)
                    c.add(pos)
                    break
            else:
                if not _is(flags2, WS | L | N) and flags2:
                    pos += cpt == 0x20
                    while not _is(flags2, WS | L | N) and flags2:
                        pos += 1
                        flags2 = c.fl(pos)
                    c.add(pos)
                    continue
                pos = _whitespace(c, pos, newlines=False)

    return _run(cps, offsets, body)


def _llama3_like(cps: Sequence[int], offsets: Sequence[int], *, triple: bool, marks: bool) -> list[int]:
    word = L | M if marks else L
    punct_stop = WS | L | N | (M if marks else 0)

    def body(c: _Chunk) -> None:
        pos = c.ini
        while pos < c.end:
            cpt, flags = c.cpt(pos), c.fl(pos)
            if k := _contraction(c, pos, lower=True):
                c.add(pos + k)
                pos += k
                continue
            if not (cpt in (0x0D, 0x0A) or _is(flags, N)) and (_is(flags, word) or _is(c.fl(pos + 1), word)):
                pos += 1
                while _is(c.fl(pos), word):
                    pos += 1
                c.add(pos)
                continue
            if _is(flags, N):
                if triple:
                    ini = pos
                    while _is(c.fl(pos), N):
                        pos += 1
                        if pos - ini >= 3:
                            c.add(pos)
                            ini = pos
                else:
                    pos += 1
                c.add(pos)
                continue
            flags2 = c.fl(pos + 1) if cpt == 0x20 else flags
            if not _is(flags2, punct_stop) and flags:
                pos += cpt == 0x20
                while not _is(flags2, punct_stop) and flags2:
                    pos += 1
                    flags2 = c.fl(pos)
                while c.cpt(pos) in (0x0D, 0x0A):
                    pos += 1
                c.add(pos)
                continue
            pos = _whitespace(c, pos, newlines=True)

    return _run(cps, offsets, body)


def llama3(cps: Sequence[int], offsets: Sequence[int]) -> list[int]:
    """``unicode_regex_split_custom_llama3``."""
    return _llama3_like(cps, offsets, triple=True, marks=False)


def qwen2(cps: Sequence[int], offsets: Sequence[int]) -> list[int]:
    """``unicode_regex_split_custom_qwen2``."""
    return _llama3_like(cps, offsets, triple=False, marks=False)


def qwen35(cps: Sequence[int], offsets: Sequence[int]) -> list[int]:
    """``unicode_regex_split_custom_qwen35``."""
    return _llama3_like(cps, offsets, triple=False, marks=True)


def is_han(cp: int) -> bool:
    """``unicode_cpt_is_han`` (U:1184-1214): fixed ranges, not Script=Han."""
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2EBEF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def kimi_k2(cps: Sequence[int], offsets: Sequence[int]) -> list[int]:
    """``unicode_regex_split_custom_kimi_k2`` (U:777-945)."""

    def letter(c: _Chunk, pos: int) -> bool:
        return _is(c.fl(pos), L) and not is_han(c.cpt(pos))

    def body(c: _Chunk) -> None:
        pos = c.ini
        while pos < c.end:
            cpt, flags = c.cpt(pos), c.fl(pos)
            if is_han(cpt):
                while is_han(c.cpt(pos)):
                    pos += 1
                c.add(pos)
                continue
            lead_ok = not (cpt in (0x0D, 0x0A) or _is(flags, L | N))
            if (_is(flags, L) and not is_han(cpt)) or (lead_ok and letter(c, pos + 1)):
                has_lead = False
                if lead_ok:
                    has_lead = True
                    pos += 1
                has_letters = False
                while letter(c, pos):
                    has_letters = True
                    pos += 1
                if has_letters or (not has_lead and letter(c, pos)):
                    if not has_letters:
                        pos += 1
                    while letter(c, pos):
                        pos += 1
                    if c.cpt(pos) == ord("'") and pos + 1 < c.end:
                        nxt = ud.to_lower(c.cpt(pos + 1))
                        if nxt in _ONE:
                            pos += 2
                        elif pos + 2 < c.end and (nxt, ud.to_lower(c.cpt(pos + 2))) in _TWO:
                            pos += 3
                    c.add(pos)
                    continue
                if has_lead:
                    pos -= 1
            if _is(flags, N):
                ini = pos
                while _is(c.fl(pos), N):
                    pos += 1
                    if pos - ini >= 3:
                        c.add(pos)
                        ini = pos
                c.add(pos)
                continue
            flags2 = c.fl(pos + 1) if cpt == 0x20 else flags
            if not _is(flags2, WS | L | N) and flags2:
                pos += cpt == 0x20
                while not _is(flags2, WS | L | N) and flags2:
                    pos += 1
                    flags2 = c.fl(pos)
                while c.cpt(pos) in (0x0D, 0x0A):
                    pos += 1
                c.add(pos)
                continue
            pos = _whitespace(c, pos, newlines=True)

    return _run(cps, offsets, body)


def digits(cps: Sequence[int], offsets: Sequence[int]) -> list[int]:
    """``unicode_regex_split_custom_afmoe`` (U:948-1019), also used for tiny_aya's ``\\d{1,3}(?=...)``.

    Non-digits before a digit run are glued to its first group: "ab12345" -> "ab12", "345".
    """

    def body(c: _Chunk) -> None:
        pos = c.ini
        while pos < c.end:
            if _is(c.fl(pos), N):
                start = pos
                while pos < c.end and _is(c.fl(pos), N):
                    pos += 1
                count = pos - start
                cur = start
                if count % 3:
                    cur += count % 3
                    c.add(cur)
                while cur < start + count:
                    cur += 3
                    c.add(cur)
                continue
            pos += 1
        if c.prev_end < c.end:
            c.add(c.end)

    return _run(cps, offsets, body)
