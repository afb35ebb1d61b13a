"""The common custom splitters (GPT2, LLAMA3, QWEN2, QWEN35) as one small compiled pattern each.

llama.cpp does not run its GPT-2/Llama-3/Qwen regexes: it runs hand-written splitters
(unicode.cpp:215-736) that differ from the regexes in corners (``\\s+`` is added after GPT-2's
``\\s+(?!\\S)``, every unmatched code point is its own piece, a flag-less code point ends a
punctuation run). Each pattern below restates one splitter as a leftmost-first alternation.

Speed trick (the same one llama.cpp uses for its std::regex path): the splitters only ask
"letter? number? mark? whitespace? flags == 0?" of non-ASCII code points, so ``collapse`` maps
each non-ASCII code point to one marker character of its class (ASCII stays as is, so the
contractions and \\r/\\n tests still see real characters). The patterns then use tiny classes,
compile in microseconds and run at C speed; piece lengths carry over to the real text 1:1.

Why each alternative equals a branch of the splitter (same order, same condition):
- contractions: ``'`` then a code point whose ``unicode_tolower`` is s/t/m/d, or two for re/ve/ll
  (GPT-2: exact ASCII, case-sensitive); only ASCII code points lower to these (checked);
- letters: ``[^\\r\\n\\p{L}\\p{N}]?\\p{L}+`` is taken iff the code point is a letter, or is not
  \\r, \\n or a number and the next one is a letter - the splitter's test;
- punctuation: the splitter loops while "not whitespace/letter/number and flags != 0";
- whitespace: W = maximal whitespace run; with \\r/\\n (not GPT-2) ``\\s*[\\r\\n]+`` ends after
  the last one; else ``\\s+(?!\\S)`` leaves the last code point when something follows;
- anything else: one code point (``(?s:.)``).
A position past the chunk is "end": callers pass ``pos``/``endpos`` so lookaheads stop there.
``reference.py`` holds the literal ports these are tested against.
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np

from tui_tok.tokenizer.pretokenize import regexes as rx
from tui_tok.tokenizer.unicode import data as ud

# Markers for non-ASCII code points (all < U+0100, so the collapsed text is latin-1).
_M_LETTER, _M_NUMBER, _M_MARK, _M_SPACE, _M_OTHER, _M_NOFLAGS = "\x80", "\x81", "\x82", "\x83", "\x84", "\x85"
_M_PUNCT = "\x88"
"""Punctuation (category P, not whitespace) has its own marker, for the one-pass forms of the
regex lists that name ``\\p{P}`` (``onepass.py``); the splitters here never list "other" code
points positively (only in negated classes and ``.``), so they see it as one more "other"."""


@cache
def _collapse_table() -> np.ndarray:
    """uint8 marker per code point; ASCII code points map to themselves.

    Built as a marker per possible flags value (65536 of them) and one gather: a few ms less on
    the first split of a process than masking all 0x110000 code points once per class.
    """
    flags = ud.flags_table()
    v = np.arange(1 << 16, dtype=np.uint32)
    lut = np.full(1 << 16, ord(_M_OTHER), dtype=np.uint8)
    lut[v == 0] = ord(_M_NOFLAGS)
    lut[(v & ud.MASK_CATEGORIES) == ud.PUNCTUATION] = ord(_M_PUNCT)
    lut[(v & ud.ACCENT_MARK) != 0] = ord(_M_MARK)
    lut[(v & ud.NUMBER) != 0] = ord(_M_NUMBER)
    lut[(v & ud.LETTER) != 0] = ord(_M_LETTER)
    lut[(v & ud.WHITESPACE) != 0] = ord(_M_SPACE)
    # A whitespace code point is never a letter, number or mark (else one marker could not say both).
    assert not np.any(flags[list(ud.WHITESPACE_CPS)] & (ud.LETTER | ud.NUMBER | ud.ACCENT_MARK))
    table = lut[flags]
    table[:128] = np.arange(128, dtype=np.uint8)
    return table


def collapse(text: str) -> str:
    """One marker character per code point of ``text`` (ASCII unchanged), same length.

    >>> collapse("aé 1٣\\u3000")
    'a\\x80 1\\x81\\x83'
    """
    if text.isascii():
        return text
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return _collapse_table()[cps].tobytes().decode("latin-1")


def _cls(flag: int, marker: str) -> str:
    """The ASCII code points with ``flag`` (with none at all for flag 0) and ``marker``, as a class body."""
    flags = ud.flags_table()
    return "".join(
        re.escape(chr(cp)) for cp in range(128) if (flags[cp] & flag if flag else flags[cp] == 0)
    ) + re.escape(marker)


@cache
def _lowered_from() -> dict[int, set[int]]:
    """Lowercase code point -> every code point that lowers to it (one pass over the map,
    not one per contraction letter, which was a visible part of a first encode)."""
    inverse: dict[int, set[int]] = {}
    for cp, low in ud.lowercase_map().items():
        inverse.setdefault(low, set()).add(cp)
    return inverse


def _lowers_to(ch: str) -> str:
    found = sorted({ord(ch)} | _lowered_from().get(ord(ch), set()))
    if any(cp >= 128 for cp in found):
        raise AssertionError(f"non-ASCII code point lowers to {ch!r}: collapsed contractions would be wrong")
    return "".join(chr(cp) for cp in found)


def _classes() -> dict[str, str]:
    return {
        "L": _cls(ud.LETTER, _M_LETTER),
        "N": _cls(ud.NUMBER, _M_NUMBER),
        "M": _cls(ud.ACCENT_MARK, _M_MARK),
        "W": _cls(ud.WHITESPACE, _M_SPACE),
        "Z": _cls(0, _M_NOFLAGS),
    }


def _contractions_ci() -> str:
    """``'`` factored out (one branch for ``re`` to try instead of seven): the second characters
    differ between the alternatives, so their order never mattered."""
    one = "|".join(f"[{_lowers_to(c)}]" for c in "stmd")
    two = "|".join(f"[{_lowers_to(a)}][{_lowers_to(b)}]" for a, b in ("re", "ve", "ll"))
    return f"'(?:{one}|{two})"


CONTRACTIONS_GPT2 = "'(?:s|t|re|ve|m|ll|d)"
"""GPT-2's exact ``'s|'t|'re|'ve|'m|'ll|'d`` with ``'`` factored out (same matches)."""


def _ws_tail(c: dict[str, str], *, newlines: bool) -> str:
    tail = f"[{c['W']}]+(?![^{c['W']}])|[{c['W']}]+|(?s:.)"
    return (f"[{c['W']}]*[\\r\\n]+|" + tail) if newlines else tail


@cache
def gpt2() -> re.Pattern[str]:
    """``unicode_regex_split_custom_gpt2`` (U:215-330), on ``collapse``d text."""
    c = _classes()
    punct = f"[^{c['W']}{c['L']}{c['N']}{c['Z']}]"
    return re.compile(f"{CONTRACTIONS_GPT2}| ?[{c['L']}]+| ?[{c['N']}]+| ?{punct}+|{_ws_tail(c, newlines=False)}")


def _llama3_like(*, numbers: str, with_marks: bool) -> re.Pattern[str]:
    c = _classes()
    letters = f"[{c['L']}{c['M']}]" if with_marks else f"[{c['L']}]"
    prefix = f"[^\\r\\n{c['L']}{c['N']}]?"
    punct = f"[^{c['W']}{c['L']}{c['N']}{c['M'] if with_marks else ''}{c['Z']}]"
    return re.compile(
        f"{_contractions_ci()}|{prefix}{letters}+|[{c['N']}]{numbers}| ?{punct}+[\\r\\n]*|{_ws_tail(c, newlines=True)}"
    )


@cache
def llama3() -> re.Pattern[str]:
    """``unicode_regex_split_custom_llama3`` (U:333-471), on ``collapse``d text."""
    return _llama3_like(numbers="{1,3}", with_marks=False)


@cache
def qwen2() -> re.Pattern[str]:
    """``unicode_regex_split_custom_qwen2`` (U:474-606), on ``collapse``d text."""
    return _llama3_like(numbers="", with_marks=False)


@cache
def qwen35() -> re.Pattern[str]:
    """``unicode_regex_split_custom_qwen35`` (U:610-736): letter runs also take marks."""
    return _llama3_like(numbers="", with_marks=True)


@cache
def number_runs() -> re.Pattern[str]:
    """Maximal runs of llama.cpp numbers (\\p{N}) in ``collapse``d text."""
    return re.compile(f"[{_classes()['N']}]+")


# Kimi-K2 also asks "Han?" (fixed ranges, unicode.cpp:1184-1214): two more markers, for Han
# code points that are letters and for the unassigned ones inside the ranges.
_M_HAN_LETTER, _M_HAN_OTHER = "\x86", "\x87"
_HAN_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2EBEF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


@cache
def _collapse_table_k2() -> np.ndarray:
    flags = ud.flags_table()
    table = _collapse_table().copy()
    for lo, hi in _HAN_RANGES:
        span = slice(lo, hi + 1)
        table[span] = np.where(flags[span] & ud.LETTER, ord(_M_HAN_LETTER), ord(_M_HAN_OTHER))
    # a Han code point is never whitespace, a number or flag-less (else two markers would be needed)
    assert all(not np.any(flags[lo : hi + 1] & (ud.WHITESPACE | ud.NUMBER)) for lo, hi in _HAN_RANGES)
    assert all(np.all(flags[lo : hi + 1] != 0) for lo, hi in _HAN_RANGES)
    return table


def collapse_k2(text: str) -> str:
    """``collapse`` plus Han markers, for the Kimi-K2 pattern."""
    if text.isascii():
        return text
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return _collapse_table_k2()[cps].tobytes().decode("latin-1")


@cache
def kimi_k2() -> re.Pattern[str]:
    """``unicode_regex_split_custom_kimi_k2`` (U:777-945), on ``collapse_k2``ed text.

    Han run; else [lead]non-Han-letters+[contraction] where the lead is one code point that is
    not \\r, \\n, a letter or a number (the C++ only starts this branch when a non-Han letter
    follows, and then always succeeds); then the Llama-3 tail (numbers in threes, GPT-2-style
    punctuation test, whitespace with newlines).
    """
    c = _classes()
    han = f"[{re.escape(_M_HAN_LETTER)}{re.escape(_M_HAN_OTHER)}]"
    letters_all = c["L"] + re.escape(_M_HAN_LETTER)
    lead = f"[^\\r\\n{letters_all}{c['N']}]?"
    punct = f"[^{c['W']}{letters_all}{c['N']}{c['Z']}]"
    one = "".join(_lowers_to(ch) for ch in "stmd")
    two = "|".join(f"[{_lowers_to(a)}][{_lowers_to(b)}]" for a, b in ("re", "ve", "ll"))
    return re.compile(
        f"{han}+|{lead}[{c['L']}]+(?:'[{one}]|'(?:{two}))?|[{c['N']}]{{1,3}}| ?{punct}+[\\r\\n]*"
        f"|{_ws_tail(c, newlines=True)}"
    )


SPLITTERS = {rx.GPT2: gpt2, rx.LLAMA3: llama3, rx.LLAMA3_ORIGINAL: llama3, rx.QWEN2: qwen2, rx.QWEN35: qwen35,
             rx.K2: kimi_k2}  # fmt: skip
"""llama.cpp's regex strings that dispatch to a custom splitter with a pattern here (K2's runs on ``collapse_k2``)."""
