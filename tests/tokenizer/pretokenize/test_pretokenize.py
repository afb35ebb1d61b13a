"""Pre-tokenization: the fast splitters against literal ports of llama.cpp's C++, and the
std::regex emulation against outputs derived by hand from llama.cpp's rules (TOKENIZER-PARITY §5).

The differential tests draw text from alphabets chosen to hit every branch of the C++
splitters: letters of many scripts, marks, digits (ASCII and not), every whitespace kind,
apostrophes with contraction letters in both cases (and ſ, K, İ which fold or lower oddly),
emoji, unassigned code points and lone surrogates.
"""

from __future__ import annotations

from itertools import accumulate

import pytest
from hypothesis import given, settings, strategies as st

from tui_tok.tokenizer.pretokenize import reference, regexes as rx, stdregex
from tui_tok.tokenizer.pretokenize.split import split_spans, split_words
from tui_tok.tokenizer.pretokenize.table import pre_spec

TRICKY = (
    "aZsStTmMdDrReEvVlL'' \t\n\r\x0b\x0c\x85\xa0\u1680\u2000\u2028\u2029\u202f\u205f\u3000"
    "\u017f\u212a\u0130éÉß\u0301\u0300\u20dd\u0903ёЖ中文字日本한국ไทยहिन्दीعربي"
    '0123456789٣١½Ⅵ〇₂!?.,;:-_/\\()[]{}<>$+^`|~@#%&*="\x00\x01\x1c\x1f\x7f'
    "🦙😶\u200d🌫\ufe0f🇩🇪\U0001f3fd\u0378\ue000\U000e0001\U0010fffd\ud800\udfff\ufa6e\U0002b73a\u4e00"
)

tricky_text = st.text(alphabet=st.sampled_from(TRICKY), max_size=40)
PLAIN_CHUNKS = st.lists(st.integers(min_value=0, max_value=12), max_size=6)


def _lengths_to_words(text: str, lengths: list[int]) -> list[str]:
    ends = list(accumulate(lengths))
    return [text[a:b] for a, b in zip([0, *ends[:-1]], ends)]


def _reference_words(text: str, splitter, chunks: list[int] | None = None) -> list[str]:
    cps = [ord(c) for c in text]
    return _lengths_to_words(text, splitter(cps, chunks if chunks is not None else [len(cps)]))


FAST_CASES = [
    (rx.GPT2, reference.gpt2),
    (rx.LLAMA3, reference.llama3),
    (rx.QWEN2, reference.qwen2),
    (rx.QWEN35, reference.qwen35),
    (rx.K2, reference.kimi_k2),
]
FAST_IDS = ["gpt2", "llama3", "qwen2", "qwen35", "kimi_k2"]


@pytest.mark.parametrize(("regex", "port"), FAST_CASES, ids=FAST_IDS)
@settings(max_examples=150, deadline=None)
@given(text=tricky_text)
def test_fast_splitter_equals_cpp_port(regex: str, port, text: str) -> None:
    assert split_words(text, (regex,)) == _reference_words(text, port)


@pytest.mark.parametrize(("regex", "port"), FAST_CASES, ids=FAST_IDS)
@settings(max_examples=60, deadline=None)
@given(text=tricky_text)
def test_fast_splitter_respects_chunk_ends(regex: str, port, text: str) -> None:
    """After the newline splitter, each chunk is split on its own ('end of text' at its end)."""
    chunks = [b - a for a, b in split_spans(text, (rx.NEWLINES,))]
    got = [text[a:b] for a, b in split_spans(text, (rx.NEWLINES, regex))]
    assert got == _reference_words(text, port, chunks)


@pytest.mark.parametrize(
    ("regex", "text", "words"),
    [
        # GPT-2: case-sensitive contractions; a lone space before \S is its own piece
        (rx.GPT2, "don't 'S 'LL ''s", ["don", "'t", " '", "S", " '", "LL", " ''", "s"]),
        (rx.GPT2, "a  b\t\tc  ", ["a", " ", " b", "\t", "\t", "c", "  "]),
        (rx.GPT2, "a \u3000b", ["a", " ", "\u3000", "b"]),
        # LLAMA3: case-insensitive contractions, digits in threes, newline runs
        (rx.LLAMA3, "'S 'LL y'all 1234567", ["'S", " '", "LL", " y", "'all", " ", "123", "456", "7"]),
        (rx.LLAMA3, "a \n\n b", ["a", " \n\n", " b"]),
        (rx.LLAMA3, "\u017f'\u017f '\u212a", ["\u017f", "'\u017f", " '", "\u212a"]),
        (rx.QWEN2, "x 12", ["x", " ", "1", "2"]),
        # QWEN35: marks join letter runs; a leading mark starts one
        (rx.QWEN35, "cafe\u0301s \u0301abc", ["cafe\u0301s", " \u0301abc"]),
        (rx.QWEN2, "cafe\u0301s", ["cafe", "\u0301s"]),
    ],
)
def test_custom_splitters_by_hand(regex: str, text: str, words: list[str]) -> None:
    assert split_words(text, (regex,)) == words
    port = dict(FAST_CASES)[regex]
    assert _reference_words(text, port) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("ab12345", ["ab12", "345"]),
        ("a  1234", ["a  1", "234"]),
        ("123456", ["123", "456"]),
        ("x1y22z", ["x1", "y22", "z"]),
        ("\u0661\u0662\u0663\u0664 a", ["\u0661", "\u0662\u0663\u0664", " a"]),
    ],
)
def test_digit_grouping_glues_leading_text(text: str, words: list[str]) -> None:
    assert split_words(text, (rx.AFMOE_DIGITS,)) == words
    assert split_words(text, (rx.TINY_AYA_DIGITS,)) == words


def test_newlines_splitter() -> None:
    assert split_words("a\r\n\nb\n", (rx.NEWLINES,)) == ["a\r", "\n\n", "b", "\n"]


def test_kimi_k2_by_hand() -> None:
    # Han runs by fixed ranges; "HelloWorld" stays one piece; contraction glued to the word
    assert split_words("HelloWorld's 中文abc 1234", (rx.K2,)) == ["HelloWorld's", " ", "中文", "abc", " ", "123", "4"]


class TestStdRegex:
    def test_collapsed_pattern_matches_llama_cpp_rewrite(self) -> None:
        assert stdregex.collapse_regex("\\p{N}+") == b"[\xd10-9]+"
        assert stdregex.collapse_regex("[^\\s\\p{L}\\p{N}]") == b"[^\\s\xd2A-Za-z\xd10-9]"
        assert stdregex.collapse_regex("[\\p{Lu}\\p{M}]") == b"[\xd2A-Za-z\xd4]"
        assert stdregex.collapse_regex("\\p{Han}") == b"\\p{Han}"  # unknown category: copied

    def test_collapsed_text_markers(self) -> None:
        # whitespace first, then category; unassigned and control -> 0xD0
        assert (
            stdregex.collapse_text("a\xa0\u0661\u00e9\u00bf\u0301\u20ac\u0378\x85")
            == b"a\x0b\xd1\xd2\xd3\xd4\xd5\xd0\x0b"
        )

    def test_all_letter_categories_collapse_to_letter(self) -> None:
        # YOUTU/TINY_AYA's \p{Lu} matches lowercase too in llama.cpp
        words = split_words("ÉCOLEécole", pre_spec("tiny_aya").regexes)
        assert words == ["ÉCOLEécole"]

    def test_dollar_is_chunk_end(self) -> None:
        # deepseek-llm's "\s+$": trailing spaces of a chunk; Python's $ would also match before "\n"
        assert split_words("a  \n", ("\\s+$",)) == ["a", "  \n"]
        assert split_words("ab  ", ("\\s+$",)) == ["ab", "  "]

    def test_empty_matches_are_words(self) -> None:
        assert split_words("1234567", pre_spec("superbpe").regexes) == ["1", "", "234", "", "567"]

    def test_wregex_non_ascii_whitespace_is_vertical_tab(self) -> None:
        # U+3000 inside deepseek-llm's class never matches: it became U+000B
        assert split_words("\u3000!", ("\\s?[!-/\u3000-\u3002]+",)) == ["\u3000!"]
        assert split_words("a\u3000b", ("[\u3000]",)) == ["a\u3000b"]

    def test_gaps_become_words(self) -> None:
        assert split_words("ab12cd", ("[0-9]+",)) == ["ab", "12", "cd"]


# Outputs for each pre on one tricky line, derived from the C++ rules (§5.1-5.4) by hand.
PRE_CASES = {
    "default": ["Hello", " ", " World", "'", "s", " ", "123", "4", " ", "\u00bd", "-", "a", "\n"],
    "falcon": ["Hello", " ", " World", "'", "s", " ", "123", "4", " \u00bd", "-", "a", "\n"],
    "starcoder": ["Hello", " ", " World", "'s", " ", "1", "2", "3", "4", " ", "\u00bd", "-", "a", "\n"],
    "gpt-2": ["Hello", " ", " World", "'s", " 1234", " \u00bd", "-", "a", "\n"],
    "llama-bpe": ["Hello", " ", " World", "'s", " ", "123", "4", " ", "\u00bd", "-a", "\n"],
    "qwen2": ["Hello", " ", " World", "'s", " ", "1", "2", "3", "4", " ", "\u00bd", "-a", "\n"],
    "gpt-4o": ["Hello", " ", " World's", " ", "123", "4", " ", "\u00bd", "-a", "\n"],
    "tekken": ["Hello", " ", " World", "'s", " ", "1", "2", "3", "4", " ", "\u00bd", "-a", "\n"],
    "deepseek-coder": ["Hello", " ", " World", "'", "s", " ", "1", "2", "3", "4", " ", "\u00bd", "-", "a", "\n"],
    "deepseek-v3": ["Hello", " ", " World", "'s", " ", "123", "4", " ", "\u00bd", "-a", "\n"],
    "poro-chat": ["Hello", " ", " World's", " 1234", " \u00bd-a", "\n"],
    "gemma4": ["Hello  World's 1234 \u00bd-a", "\n"],
    "whitespace": ["Hello", "  ", "World's", " ", "1234", " ", "\u00bd-a", "\n"],
    "afmoe": ["Hello", " ", " World", "'s", " ", "1", "234", " ", "\u00bd", "-a", "\n"],
}


@pytest.mark.parametrize("pre", sorted(PRE_CASES))
def test_pre_types_on_tricky_line(pre: str) -> None:
    assert split_words("Hello  World's 1234 \u00bd-a\n", pre_spec(pre).regexes) == PRE_CASES[pre]


@settings(max_examples=40, deadline=None)
@given(text=tricky_text)
def test_every_pre_tiles_its_input(text: str) -> None:
    """Whatever the pre, words are in order and cover the text exactly once."""
    from tui_tok.tokenizer.pretokenize.table import SUPPORTED

    for pre in SUPPORTED:
        assert "".join(split_words(text, pre_spec(pre).regexes)) == text, pre


@settings(max_examples=150, deadline=None)
@given(text=tricky_text, chunked=st.booleans())
def test_digit_splitter_equals_cpp_port(text: str, chunked: bool) -> None:
    regexes = (rx.NEWLINES, rx.AFMOE_DIGITS) if chunked else (rx.AFMOE_DIGITS,)
    chunks = [b - a for a, b in split_spans(text, (rx.NEWLINES,))] if chunked else None
    got = [text[a:b] for a, b in split_spans(text, regexes)]
    assert got == _reference_words(text, reference.digits, chunks)
