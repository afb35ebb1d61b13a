"""One-pass splits (``onepass.plan`` + ``tiled.findall_tiled``) against the step-by-step reference.

For every pre whose regex list has a one-pass form, ``split_words`` must give exactly the words of
``split_spans`` (llama.cpp's loop: each regex on every chunk of the previous one, std::regex
emulated per chunk) and, for the custom splitters, of the literal C++ ports in ``reference.py``.
Texts are hostile (mixed scripts, marks, digits of several kinds, apostrophes, emoji, unassigned
code points, lone surrogates, whitespace runs, \\r\\n) and the segment size is forced down to a few
characters so that every safe-boundary cut, and the ASCII and restored segment paths, are hit.
"""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given, settings, strategies as st

from tui_tok.tokenizer.pretokenize import onepass, reference, regexes as rx, tiled
from tui_tok.tokenizer.pretokenize.split import split_spans, split_words
from tui_tok.tokenizer.pretokenize.table import REGEXES

TRICKY = (
    "aZsStTmMdDrReEvVlL'' \t\n\r\x0b\x0c\x85\xa0\u1680\u2000\u2028\u2029\u202f\u205f\u3000"
    "\u017f\u212a\u0130éÉß\u0301\u0300\u20dd\u0903ёЖ中文字日本한국ไทยहिन्दीعربي"
    '0123456789٣١½Ⅵ〇₂!?.,;:-_/\\()[]{}<>$+^`|~@#%&*="\x00\x01\x1c\x1f\x7f'
    "🦙😶\u200d🌫\ufe0f🇩🇪\U0001f3fd\u0378\ue000\U000e0001\U0010fffd\ud800\udfff\ufa6e\U0002b73a\u4e00"
    "¿¡«»—–…‘’“”·•§¶†‰€£¥©®™°±×÷"
    "Ａｚ！：～０９µÀÖØöøƺƻǄǅẞ\u1e00\u3001\u3002ⅫΩЯ가힣\u0800\u4dff\u9fa5\u9fa6"  # deepseek's class edges
)
ASCIIISH = "aZb xy'sT1234567890 \n\n\r\n\t.,;!?$+<=>^~|`()-_/\\\"#@%&*"

hostile = st.text(alphabet=st.sampled_from(TRICKY), max_size=60)
# mostly ASCII with newlines before letters and digits (the segment boundaries) and some non-ASCII
mixed = st.lists(
    st.one_of(
        st.text(alphabet=st.sampled_from(ASCIIISH), max_size=12),
        st.text(alphabet=st.sampled_from(TRICKY), max_size=4),
        st.sampled_from(
            [
                "\nabc",
                "\n12345",
                " \n9",
                "\n\nx",
                ".\n/a",
                "  \n  \nq",
                "\r\nZ",
                "'s\nt",
                "\né",
                "\n中",
                "\n.",
                ".\n.",
                "\n's",
                "\n\u3000x",
                "\n\x1cx",
                "\n٣",
                "\n\u0301",
                " \n\xa0",
            ]
        ),
    ),
    max_size=14,
).map("".join)

ONE_PASS = sorted(name for name, regexes in REGEXES.items() if onepass.plan(regexes) is not None)
PORTS = {rx.GPT2: reference.gpt2, rx.LLAMA3: reference.llama3, rx.QWEN2: reference.qwen2, rx.QWEN35: reference.qwen35,
         rx.K2: reference.kimi_k2}  # fmt: skip


def _reference(text: str, regexes: tuple[str, ...]) -> list[str]:
    if len(regexes) == 1 and regexes[0] in PORTS:
        lengths = PORTS[regexes[0]]([ord(c) for c in text], [len(text)])
        out, pos = [], 0
        for n in lengths:
            out.append(text[pos : pos + n])
            pos += n
        return out
    return [text[a:b] for a, b in split_spans(text, regexes)]


def test_the_corpus_pres_have_one_pass_forms() -> None:
    for name in ("GPT2", "MPT", "LLAMA3", "QWEN2", "QWEN35", "STARCODER", "REFACT", "COMMAND_R", "DEFAULT",
                 "FALCON", "TEKKEN", "GEMMA4", "DEEPSEEK_LLM", "DEEPSEEK_CODER", "KIMI_K2"):  # fmt: skip
        assert name in ONE_PASS


@pytest.mark.parametrize("name", ONE_PASS)
@settings(max_examples=60, deadline=None)
@given(text=st.one_of(hostile, mixed), segment=st.sampled_from([1, 3, 7, 2048]))
def test_one_pass_equals_step_by_step(name: str, text: str, segment: int) -> None:
    regexes = REGEXES[name]
    with patch.object(tiled, "SEGMENT", segment):
        assert split_words(text, regexes) == _reference(text, regexes)
        assert onepass.plan(regexes).words(text) == _reference(text, regexes)  # also below min_text


@pytest.mark.parametrize(
    "name",
    ["GPT2", "LLAMA3", "QWEN2", "QWEN35", "STARCODER", "DEFAULT", "FALCON", "TEKKEN", "DEEPSEEK_LLM", "DEEPSEEK_CODER"],
)
def test_segmented_long_text(name: str) -> None:
    """A long mixed text cut into many real segments (ASCII ones and restored ones)."""
    parts = ["Hello world's 12345 foo.\n", "Größe 中文字 ١٢٣٤٥ 🦙 x\u3000y\n", "\tdef f(x):\n    return x+1\n",
             "  \n\nAB'LL 99\r\n", ".\n/abc\n", "é\u0301\u20dd!!\n7", "\n'll\n.\n", "中\n\u3000\n"]  # fmt: skip
    text = "".join(parts[(i * 7) % len(parts)] for i in range(400))
    regexes = REGEXES[name]
    with patch.object(tiled, "SEGMENT", 50):
        assert split_words(text, regexes) == _reference(text, regexes)


def test_single_std_regex_gaps_are_words() -> None:
    """A single std::regex that leaves gaps: the gap branch gives them as words."""
    one = onepass.plan(("\\p{N}+",))
    assert one is not None
    assert one.words("ab12 c٣4") == ["ab", "12", " c", "٣4"]


def test_no_one_pass_for_empty_matches_or_context() -> None:
    assert onepass.plan(rx.SUPERBPE[1:]) is None  # matches only empty strings
    assert onepass.plan(("\\bfoo",)) is None  # looks before its start
    assert onepass.plan(rx.DEEPSEEK3_LLM) is None


@pytest.mark.parametrize("name", ["DEEPSEEK_LLM", "DEEPSEEK_CODER"])
def test_deepseek_text_holding_every_cut_mark(name: str) -> None:
    """The cut-mark characters themselves in the text: the slicing fallback, same words."""
    text = "ab \U0010fffe12\U0010ffff 中文\ufdd0 x\ufdd1\n  y\U0010fffe"
    assert onepass.plan(REGEXES[name]).words(text) == _reference(text, REGEXES[name])
    assert split_words(text * 30, REGEXES[name]) == _reference(text * 30, REGEXES[name])


@pytest.mark.parametrize("name", ["STARCODER", "DEFAULT", "FALCON", "QWEN2"])
@pytest.mark.parametrize("text", [" \n١", " \n、x", "  \n٣4", "a \n«b"])
def test_lookahead_past_a_boundary_sees_the_class(name: str, text: str) -> None:
    """An all-ASCII segment whose lookahead reaches a non-ASCII number or punctuation (a chunk end
    for STARCODER, DEFAULT and FALCON) must see its class, not an unknown character."""
    with patch.object(tiled, "SEGMENT", 1):
        assert split_words(text, REGEXES[name]) == _reference(text, REGEXES[name])
