"""``explore.visible``: any string becomes one a terminal only prints (no control, no character that
takes no cell, no lone surrogate); ``json_dumps`` writes the same JSON value with none of them raw."""

from __future__ import annotations

import doctest
import json

import regex
from hypothesis import given, strategies as st

from tui_tok.explore import visible as visible_module
from tui_tok.explore.visible import json_dumps, visible, visible_repr

ACTS = regex.compile(r"[\x00-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]")
"""What a terminal acts on, draws as nothing, or cannot be written at all."""
NASTY = st.text(st.sampled_from("a [/]\x1b\x07\x85\x9b\x9d\x7f\n\t\r\u200b\u202e\u2028\ufeff\udc85\U000e0067é🙂"))


def test_doctests() -> None:
    assert doctest.testmod(visible_module).failed == 0


@given(st.text() | NASTY)
def test_visible_leaves_nothing_a_terminal_acts_on(text: str) -> None:
    shown = visible(text)
    assert ACTS.search(shown) is None
    shown.encode("utf-8")  # no lone surrogate left (it would raise)
    lines = visible(text, lines=True)
    assert ACTS.search(lines.replace("\n", "").replace("\t", "")) is None
    assert lines.count("\n") == text.count("\n")


@given(st.text() | NASTY)
def test_visible_keeps_printable_text(text: str) -> None:
    if ACTS.search(text) is None:
        assert visible(text) == text


def test_markup_is_kept_as_text() -> None:
    assert visible("[bold]x[/][@click=app.quit]") == "[bold]x[/][@click=app.quit]"
    assert visible("\x1b]2;T\x1b\\\x9b7m\u202e") == "␛]2;T␛\\⟨009B⟩7m⟨202E⟩"


@given(st.recursive(st.none() | st.booleans() | st.integers() | (st.text() | NASTY),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text() | NASTY, inner, max_size=3),
                    max_leaves=8))  # fmt: skip
def test_json_dumps_is_the_same_value_without_raw_controls(value: object) -> None:
    out = json_dumps(value)
    assert json.loads(out) == value
    assert ACTS.search(out) is None


def test_visible_repr() -> None:
    assert visible_repr("a\x1b\x9b\udcff") == r"'a\x1b\x9b\\xff'"  # the byte, as info prints it
