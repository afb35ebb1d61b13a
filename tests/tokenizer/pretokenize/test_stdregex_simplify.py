"""``stdregex.simplify``: the faster rewrite of a collapsed pattern keeps every match span.

Checked for every regex of every pre-tokenizer that takes llama.cpp's collapsed std::regex
path, on real mixed text and on Hypothesis strings over the bytes the collapsed text is made of.
"""

from __future__ import annotations

import re
import warnings
from functools import cache

import pytest
from hypothesis import given, settings, strategies as st

from tui_tok.tokenizer.pretokenize import stdregex
from tui_tok.tokenizer.pretokenize.table import SUPPORTED, pre_spec


@cache
def _collapsed_regexes() -> tuple[str, ...]:
    found: dict[str, None] = {}
    for pre in SUPPORTED:
        for rx in pre_spec(pre).regexes:
            if stdregex.uses_collapsed(rx):
                found[rx] = None
    return tuple(found)


def _plain(rx: str) -> re.Pattern[bytes]:
    raw = stdregex._dollar_to_end(stdregex.collapse_regex(rx).decode("latin-1")).encode("latin-1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(raw)


def _spans(pattern: re.Pattern[bytes], subject: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(subject)]


SAMPLE = (
    "Hello WORLD, McDonald's iPhone XMLHttpRequest déjà-vu ÉCOLE straße 123 4,567 ½ "
    "\tcafé\r\n  \u3000日本語 한국어 Ελληνικά  👍🏽 it's I'M we'd x̃y ǅungla\n\n  "
) * 3

# the bytes of a collapsed text: ASCII plus llama.cpp's category markers
collapsed_bytes = st.binary(max_size=60).map(lambda b: bytes(c if c < 0x80 else 0xD0 + c % 6 for c in b))


@pytest.mark.parametrize("rx", _collapsed_regexes())
def test_simplified_spans_on_sample(rx: str) -> None:
    subject = stdregex.collapse_text(SAMPLE)
    assert _spans(stdregex.compile_collapsed(rx), subject) == _spans(_plain(rx), subject)


@settings(max_examples=150, deadline=None)
@given(collapsed_bytes)
def test_simplified_spans_random(subject: bytes) -> None:
    for rx in _collapsed_regexes():
        assert _spans(stdregex.compile_collapsed(rx), subject) == _spans(_plain(rx), subject), rx


def test_rewrites_are_applied() -> None:
    """The rewrite is not a no-op where it matters (tekken's letter classes)."""
    tekken = next(rx for rx in _collapsed_regexes() if "(?=[\\p{L}])([^a-z])" in rx)
    simplified = stdregex.compile_collapsed(tekken).pattern
    assert b"(?=" not in simplified and b"((" not in simplified
    assert stdregex.simplify(rb"(a)\1") == rb"(a)\1"  # backreferences: left alone
