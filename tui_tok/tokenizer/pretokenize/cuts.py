"""DEEPSEEK_LLM and DEEPSEEK_CODER as cut positions computed with numpy (no per-chunk regex).

Their regex lists are six and five std::regex steps, each run on every chunk the previous ones
left (``split.split_spans``): tens of thousands of small regex calls. Every step is simple
enough to state as "where are the cuts", from per-code-point class bits:

1. ``[\\r\\n]``: a cut before and after every \\r and \\n.
2. ``\\s?A+`` (A: deepseek-llm's Latin/Greek/Cyrillic... class, deepseek-coder's ``\\p{L}``): an A
   run (never crosses \\r\\n) plus the whitespace right before it if that is not \\r\\n (the
   leftmost search reaches it first; nothing earlier can take it). Cuts at both ends.
3. ``\\s?B+`` (B: llm's ASCII-and-fullwidth punctuation class, which also holds ASCII and
   fullwidth letters; coder's ``\\p{P}``): inside a step-2 word (whitespace only at its start)
   the B runs are the matches and the rest the gaps, so cuts fall where B-membership changes
   between two A characters; between step-2 words, B runs plus the whitespace right before.
4. llm only, ``\\s+$``: a step-3 word with a non-space character loses its trailing whitespace run.
5. ``C+`` (the CJK/Indic/Hangul ranges): C runs and the rest, so a cut wherever C-membership
   changes; 6. llm ``\\p{N}+``: the same for N-membership; coder ``\\p{N}``: a cut around every number.
A later step only cuts inside the words of the earlier ones, so the words are the text between
all cuts. Classes are read on llama.cpp's views: non-ASCII whitespace is U+000B there (in no class
but ``\\s``) and ``\\p{..}`` is the collapsed category. Tested against ``split_spans`` in
``tests/tokenizer/pretokenize/test_pretokenize_onepass.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import numpy as np

from tui_tok.tokenizer.pretokenize import regexes as rx, stdregex
from tui_tok.tokenizer.unicode import data as ud

NL, WS, A, B, C, N = 1, 2, 4, 8, 16, 32


@dataclass(frozen=True, slots=True)
class DeepseekCuts:
    """One of the two deepseek lists, as class bits per code point and the cut rules above."""

    regexes: tuple[str, ...]
    trailing_space: bool
    """Step 4 (``\\s+$``) is in the list."""
    single_numbers: bool
    """``\\p{N}`` (every number its own word) rather than ``\\p{N}+``."""
    min_text: int = 256
    """Shorter texts take ``split``'s memoised per-chunk path: a few dozen numpy calls cost their
    overhead even on a word, while a repeated short fragment (text between special tokens) is one memo lookup."""

    def words(self, text: str) -> list[str]:
        if not text:
            return []
        n = len(text)
        cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        bits = _table(self.regexes)[cps]
        nl, ws, a, b = (bits & NL) != 0, (bits & WS) != 0, (bits & A) != 0, (bits & B) != 0
        cut = np.zeros(n + 1, dtype=bool)
        cut[0] = cut[n] = True
        cut[:-1] |= nl
        cut[1:] |= nl
        # step 2: A runs with the whitespace right before them
        a_prev = _shift(a)
        a_start = a & ~a_prev
        glue = np.zeros(n, dtype=bool)
        glue[:-1] = a_start[1:] & ws[:-1] & ~nl[:-1]
        cut[:-1] |= glue | (a_start & ~_shift(glue))
        cut[1:] |= a & ~_unshift(a)
        word2 = a | glue
        # step 3: B-changes inside A runs; B runs (and the whitespace before) between them
        cut[:-1] |= a & a_prev & (b != _shift(b))
        b2 = b & ~word2
        b2_start = b2 & ~_shift(b2)
        bglue = np.zeros(n, dtype=bool)
        bglue[:-1] = b2_start[1:] & ws[:-1] & ~nl[:-1] & ~word2[:-1]
        cut[:-1] |= bglue | (b2_start & ~_shift(bglue))
        cut[1:] |= b2 & ~_unshift(b2)
        if self.trailing_space:
            _cut_trailing_space(cut, ws)
        c, num = (bits & C) != 0, (bits & N) != 0
        cut[1:-1] |= c[1:] != c[:-1]
        if self.single_numbers:
            cut[:-1] |= num
            cut[1:] |= num
        else:
            cut[1:-1] |= num[1:] != num[:-1]
        return _cut_text(text, cps, np.flatnonzero(cut[1:-1]) + 1)


_SEPARATORS = ("\U0010fffe", "\U0010ffff", "\ufdd0", "\ufdd1")
"""Noncharacters, one of which is almost never in a text: the cut mark for ``str.split``."""


def _cut_text(text: str, cps: np.ndarray, cuts: np.ndarray) -> list[str]:
    """``text`` cut before each position in ``cuts`` (ascending, inside the text). One
    ``str.split`` on the text with a mark inserted at the cuts: no slice object per word."""
    for sep in _SEPARATORS:
        if sep not in text:
            marked = np.insert(cps, cuts, ord(sep)).tobytes().decode("utf-32-le", "surrogatepass")
            return marked.split(sep)
    bounds = [0, *cuts.tolist(), len(text)]
    return list(map(text.__getitem__, map(slice, bounds, bounds[1:])))


def _shift(x: np.ndarray) -> np.ndarray:
    """x[i-1] at i (False at 0)."""
    out = np.zeros_like(x)
    out[1:] = x[:-1]
    return out


def _unshift(x: np.ndarray) -> np.ndarray:
    """x[i+1] at i (False at the end)."""
    out = np.zeros_like(x)
    out[:-1] = x[1:]
    return out


def _cut_trailing_space(cut: np.ndarray, ws: np.ndarray) -> None:
    """Step 4 on the words between the cuts so far: cut before a word's trailing whitespace run
    unless that run is the whole word."""
    n = len(ws)
    bounds = np.flatnonzero(cut)
    starts, ends = bounds[:-1], bounds[1:]
    idx = np.arange(n)
    run_start = np.maximum.accumulate(np.where(ws, -1, idx)) + 1  # start of the whitespace run at i
    last = ends - 1
    t = np.maximum(starts, run_start[last])
    sel = ws[last] & (t > starts)
    cut[t[sel]] = True


def plan(regexes: tuple[str, ...]) -> DeepseekCuts | None:
    if regexes == rx.DEEPSEEK_LLM:
        return DeepseekCuts(regexes, trailing_space=True, single_numbers=False)
    if regexes == rx.DEEPSEEK_CODER:
        return DeepseekCuts(regexes, trailing_space=False, single_numbers=True)
    return None


@cache
def _table(regexes: tuple[str, ...]) -> np.ndarray:
    """Class bits per code point for one of the two lists (see the module docstring).

    The collapsed-category classes, \\s and \r\n are a function of llama.cpp's collapsed byte
    (non-ASCII whitespace collapses to U+000B, as the wide view maps it): one byte table and one
    gather. The plain classes are ranges of code points as they are, except that non-ASCII
    whitespace is U+000B to them.
    """
    lut = np.zeros(256, dtype=np.uint8)
    lut[[0x0A, 0x0D]] |= NL
    lut[[0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]] |= WS
    wide: list[tuple[int, str]] = []
    steps = [r for r in regexes if r not in ("[\r\n]", "\\s+$")]
    for bit, cls in zip((A, B, C, N), map(_run_class, steps), strict=True):
        if stdregex.uses_collapsed(cls):
            pattern = stdregex.compile_collapsed(cls)
            lut[[i for i in range(256) if pattern.fullmatch(bytes([i]))]] |= bit
        else:
            wide.append((bit, cls))
    table = lut[stdregex._collapse_table()]
    non_ascii_ws = [cp for cp in ud.WHITESPACE_CPS if cp > 0x7F]
    for bit, cls in wide:
        ranges = _ranges(cls)
        for lo, hi in ranges:
            table[lo : hi + 1] |= bit
        table[non_ascii_ws] &= 0xFF ^ bit
        if any(lo <= 0x0B <= hi for lo, hi in ranges):  # the view's U+000B
            table[non_ascii_ws] |= bit
    return table


def _run_class(regex_expr: str) -> str:
    """The class of ``\\s?X+``, ``X+`` or ``X`` (X a class or ``\\p{..}``)."""
    body = regex_expr.removeprefix("\\s?")
    return body[:-1] if body.endswith("+") else body


def _ranges(cls: str) -> list[tuple[int, int]]:
    """(lo, hi) code point ranges of a plain ``[...]`` class (literals and ranges only)."""
    try:
        from re import _constants as sc, _parser  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - Python < 3.11
        import sre_constants as sc  # type: ignore[no-redef]
        import sre_parse as _parser  # type: ignore[no-redef]
    ((op, items),) = list(_parser.parse(cls, re.ASCII))
    if op is not sc.IN:
        raise ValueError(f"not a plain class: {cls!r}")
    out: list[tuple[int, int]] = []
    for kind, value in items:
        if kind is sc.LITERAL:
            out.append((value, value))
        elif kind is sc.RANGE:
            out.append(value)
        else:
            raise ValueError(f"not a plain class: {cls!r}")
    return out
