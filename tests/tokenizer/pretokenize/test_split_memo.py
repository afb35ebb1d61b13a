"""The memoised regex-list splitter (``split._run``) against the plain per-chunk one.

``split_words`` runs a pre's regex list on chunk texts, memoising each distinct chunk's final
pieces; that is exact only because every view is a per-code-point map and the patterns never
look before a chunk. Here its words are compared with ``split_spans`` (every chunk cut by
``finditer`` with pos/endpos on the whole view), for every regex list in ``regexes.py``, on text
drawn from the tricky alphabet, repeated so that memo hits happen.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from tui_tok.tokenizer.pretokenize import regexes as rx, split, stdregex

TRICKY = (
    "aZsSdD'' \t\n\r\x0b\x85\xa0\u3000\u017féß\u0301Ж中文한ไ0123456789٣½!?.,;-_/()$+^`|~@#\x00\x7f"
    "🦙\u200d\U0001f3fd\u0378\ue000\ud800\u4e00\u0800\uac00\u3041\u30a1\uff01"
)

LISTS = {name: (value,) if isinstance(value, str) else value for name, value in vars(rx).items() if name.isupper()}

words = st.text(alphabet=st.sampled_from(TRICKY), max_size=12)


def _plain_words(text: str, regexes: tuple[str, ...]) -> list[str]:
    return [text[a:b] for a, b in split.split_spans(text, regexes)]


@pytest.mark.parametrize("name", sorted(LISTS))
@settings(max_examples=40, deadline=None)
@given(parts=st.lists(words, max_size=8))
def test_memoised_split_equals_plain(name: str, parts: list[str]) -> None:
    regexes = LISTS[name]
    text = "".join(parts) + " ".join(parts) + "\n".join(reversed(parts))  # repeats: memo hits
    assert split.split_words(text, regexes) == _plain_words(text, regexes)
    if split._context_free(regexes):
        assert split._run(regexes, 0, [text]) == _plain_words(text, regexes)


def test_context_free() -> None:
    assert stdregex.context_free("[^\\s\\p{L}]+|\\s+(?!\\S)|\\^")
    assert not stdregex.context_free("^a")
    assert not stdregex.context_free("\\[^a")
    assert not stdregex.context_free("\\bx")
    assert not stdregex.context_free("(?<=a)b")
    assert stdregex.context_free("[\\[\\]^_]a|[]^]|[^^]")  # a ^ inside a class is a character
    assert not stdregex.context_free("[]]^")
    assert split._context_free(rx.DEEPSEEK3_LLM) and split._context_free(rx.AFMOE)
