"""Character classes built from llama.cpp's Unicode 15.1 tables, for ``regex`` patterns.

The ``regex`` module's own ``\\p{L}`` follows a newer Unicode than llama.cpp; these bodies
list exactly the code points llama.cpp flags, so a pattern built from them classifies every
code point as llama.cpp does. Bodies have no brackets: ``f"[{LETTER}{NUMBER}]"``.

Does not build patterns: see ``fast.py``.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tui_tok.tokenizer import unicode_data as ud


@cache
def letter() -> str:
    """llama.cpp's ``is_letter`` (\\p{L})."""
    return ud.category_class(ud.LETTER)


@cache
def number() -> str:
    """llama.cpp's ``is_number`` (\\p{N})."""
    return ud.category_class(ud.NUMBER)


@cache
def mark() -> str:
    """llama.cpp's ``is_accent_mark`` (\\p{M})."""
    return ud.category_class(ud.ACCENT_MARK)


@cache
def whitespace() -> str:
    """llama.cpp's ``is_whitespace`` (its ``\\s``)."""
    return ud.whitespace_class()


@cache
def no_flags() -> str:
    """Code points whose flags are all zero (``as_uint() == 0``); custom splitters treat them as
    "past the end". Empty for the 15.1 tables (Cn has the UNDEFINED bit), kept so the patterns
    stay exact if the tables change."""
    zero = np.flatnonzero(flags_array() == 0)
    return _ranges_body(zero)


@cache
def lowers_to(ch: str) -> str:
    """Every code point whose ``unicode_tolower`` is ``ch`` (for case-insensitive contractions)."""
    target = ord(ch)
    cps = [target] + [cp for cp in ud._LOWER if ud._LOWER[cp] == target]  # noqa: SLF001
    return _ranges_body(np.array(sorted(set(cps)), dtype=np.int64))


def flags_array() -> np.ndarray:
    """uint16 flags per code point (llama.cpp's ``unicode_cpt_flags_array``)."""
    return ud.flags_table()


def _ranges_body(cps: np.ndarray) -> str:
    if cps.size == 0:
        return ""
    breaks = np.flatnonzero(np.diff(cps) != 1)
    starts = np.concatenate(([cps[0]], cps[breaks + 1]))
    ends = np.concatenate((cps[breaks], [cps[-1]]))
    return "".join(
        f"\\U{int(a):08X}" if a == b else f"\\U{int(a):08X}-\\U{int(b):08X}" for a, b in zip(starts, ends)
    )
