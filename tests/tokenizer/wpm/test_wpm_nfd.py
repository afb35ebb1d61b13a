"""The WPM classes without 1.1M-entry tables: ``nfd_first_of`` (a binary search in llama.cpp's
NFD ranges) and the CJK range test give, on every code point, what a full table gives."""

from __future__ import annotations

import numpy as np

from tui_tok.tokenizer.unicode.data import MAX_CODEPOINTS, nfd_first, nfd_ranges
from tui_tok.tokenizer.wpm.classify import CJK_RANGES, _is_cjk, nfd_first_of


def nfd_first_table() -> np.ndarray:
    """cp -> first cp of its NFD for every cp, from llama.cpp's ranges (later ranges win)."""
    table = np.arange(MAX_CODEPOINTS, dtype=np.int64)
    for first, last, value in zip(*(r.tolist() for r in nfd_ranges())):
        table[first : last + 1] = value
    return table


def test_nfd_first_of_equals_the_table_on_every_code_point() -> None:
    every = np.arange(MAX_CODEPOINTS, dtype=np.uint32)
    got = nfd_first_of(every)
    assert got.dtype == np.int64
    assert np.array_equal(got, nfd_first_table())
    sample = every[::257].tolist()
    assert [nfd_first(cp) for cp in sample] == got[::257].tolist()  # the per-character lookup too


def test_cjk_ranges_without_a_table() -> None:
    table = np.zeros(MAX_CODEPOINTS, dtype=bool)
    for lo, hi in CJK_RANGES:
        table[lo : hi + 1] = True
    assert np.array_equal(_is_cjk(np.arange(MAX_CODEPOINTS, dtype=np.int64)), table)
