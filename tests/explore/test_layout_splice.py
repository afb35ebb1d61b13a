"""An edit re-tokenized around itself (``explore.edit``) and its layout spliced (``explore.layout_splice``)
equal the whole text tokenized and laid out again: ids, spans, kinds, colour phases, lines and cells."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from support import VocabFile, vocab_files
from tui_tok.explore.edit import edit_margin, plan_edit, retokenize_edit
from tui_tok.explore.layout import kind_codes, layout_arrays, wrap_rows
from tui_tok.explore.layout_splice import splice_layout, splice_rows
from tui_tok.loader import load_tokenizer
from tui_tok.samples import DEFAULT_SAMPLE
from tui_tok.tokenizer.tokenizer import Tokenizer, as_bytes

SPLICED = ("qwen3-vocab", "gpt-2", "llama-bpe", "command-r", "falcon", "mistral-tekken-240718", "starcoder", "qwen35",
           "gpt-neox", "refact", "mpt", "aquila", "qwen2")  # fmt: skip

PARTS = ["\n", "\n\n", " ", "  ", "\t", "a", "Hello", " world", "'s", "12345", "é", "日本", "🙂", ".", "!!", "\r\n",
         "\u00a0", "\u3000", "<|im_end|>", "<|endoftext|>", "x  \n", "\n y", "\u200b", "def f(x):\n    return x\n"]  # fmt: skip
TEXT = st.lists(st.sampled_from(PARTS), max_size=60).map("".join)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VOCABS = [v for v in vocab_files() if v.name in SPLICED]
"""Vocabularies whose edits are re-tokenized locally (``edit_margin``), those available here."""
_LOADED: dict[str, Tokenizer] = {}


def loaded(vf: VocabFile) -> Tokenizer:
    if vf.name not in _LOADED:
        _LOADED[vf.name] = load_tokenizer(vf.path)
    return _LOADED[vf.name]


@pytest.fixture(scope="module")
def tok():  # type: ignore[no-untyped-def]
    return load_tokenizer(DEFAULT_SAMPLE)


def layout_of(tok, text: str, add: bool, parse: bool):  # type: ignore[no-untyped-def]
    ids, starts, ends = tok.tokenize_arrays(text, add_special=add, parse_special=parse)
    kinds = kind_codes(tok.token_kinds())
    return layout_arrays(text, ids=ids, starts=starts, ends=ends, kinds=kinds[ids]), kinds


@pytest.mark.parametrize("vf", VOCABS, ids=[v.name for v in VOCABS])
def test_these_vocabs_splice(vf: VocabFile) -> None:
    assert edit_margin(loaded(vf)) is not None  # they have proven cuts: the test below is not vacuous


@pytest.mark.parametrize("vf", VOCABS, ids=[v.name for v in VOCABS])
@SETTINGS
@given(text=TEXT, insert=TEXT, at=st.integers(0, 400), cut=st.integers(0, 30), add=st.booleans(), parse=st.booleans())
def test_splice_equals_a_fresh_tokenization(
    vf: VocabFile, text: str, insert: str, at: int, cut: int, add: bool, parse: bool
) -> None:
    tok = loaded(vf)
    text = text * 3  # long enough for cuts before and after the edit
    at = min(at, len(text))
    new_text = text[:at] + insert + text[at + cut :]
    old, new = as_bytes(text), as_bytes(new_text)
    old_tokens = tok.tokenize_arrays(text, add_special=False, parse_special=parse)
    fresh = tok.tokenize_arrays(new_text, add_special=False, parse_special=parse)
    got = retokenize_edit(tok, old, old_tokens, new, parse_special=parse)
    assert got is not None
    assert [a.tolist() for a in got] == [a.tolist() for a in fresh]

    splice = plan_edit(tok, old, old_tokens, new, parse_special=parse)
    assert splice is not None
    old_layout, kinds = layout_of(tok, text, add, parse)
    n_bos = int(add and tok.vocab.add_bos)
    spliced = splice_layout(
        old_layout, new_text, char_a=len(new[: splice.a].decode()), char_b_old=len(text) - len(new[splice.b :].decode()),
        first=splice.first + n_bos, stop=splice.stop + n_bos, mid_ids=splice.mid[0], mid_starts=splice.mid[1],
        mid_ends=splice.mid[2], kinds_by_id=kinds, n_bytes=len(new),
    )  # fmt: skip
    expected, _ = layout_of(tok, new_text, add, parse)
    for field in ("ids", "starts", "ends", "kinds", "phases", "line_starts"):
        assert np.array_equal(getattr(spliced, field), getattr(expected, field)), field
    assert spliced.cells == expected.cells
    assert spliced.n_bytes == expected.n_bytes and spliced.text == expected.text


def test_an_edit_far_from_the_ends_reencodes_little(tok) -> None:  # type: ignore[no-untyped-def]
    text = "def f(x):\n    return x  # é\n\nThe quick 12345 fox.\n" * 2_000
    new_text = text[:50_000] + "Z" + text[50_000:]
    old_tokens = tok.tokenize_arrays(text, add_special=False)
    splice = plan_edit(tok, as_bytes(text), old_tokens, as_bytes(new_text), parse_special=False)
    assert splice is not None
    assert splice.b - splice.a < 1_000  # a few lines, not the text


ROW_PARTS = ["\n", "\n\n", "a", "Hello world ", "日本語", "🙂", "\u200d", "\u200b\u200b", "\t", "x" * 30, "é"]


@settings(max_examples=150, deadline=None)
@example(text="ab\ncd\u200def\n", insert="X", at=0, cut=0, before=0, after=0, width=5)
@given(
    text=st.lists(st.sampled_from(ROW_PARTS), max_size=40).map("".join),
    insert=st.lists(st.sampled_from(ROW_PARTS), max_size=5).map("".join),
    at=st.integers(0, 400), cut=st.integers(0, 30), before=st.integers(0, 20), after=st.integers(0, 20),
    width=st.sampled_from([2, 5, 11, 40]),
)  # fmt: skip
def test_spliced_rows_equal_a_fresh_wrap(
    text: str, insert: str, at: int, cut: int, before: int, after: int, width: int
) -> None:
    """A view keeps its wrapped rows over an edit (``splice_rows``): only the lines around the
    replaced stretch are wrapped again, and the rows are those of wrapping the new text whole,
    greedy breaks (lines with a drawn code such as ⟨200D⟩) included. The stretch may be wider
    than the edit (the engine's stretches run from cut to cut)."""
    at = min(at, len(text))
    cut = min(cut, len(text) - at)
    new_text = text[:at] + insert + text[at + cut :]
    empty = np.zeros(0, dtype=np.int64)
    lay = lambda t: layout_arrays(t, ids=empty, starts=empty, ends=empty, kinds=np.zeros(0, dtype=np.uint8))  # noqa: E731
    old, new = lay(text), lay(new_text)
    got = splice_rows(
        wrap_rows(old, width=width), old, new, char_a=max(0, at - before), char_b_old=min(len(text), at + cut + after)
    )
    want = wrap_rows(new, width=width)
    assert got is not None
    assert got.row_starts.tolist() == want.row_starts.tolist()
    assert {k: v.tolist() for k, v in got.breaks.items()} == {k: v.tolist() for k, v in want.breaks.items()}


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 30_000), st.integers(0, 30_000), st.binary(max_size=3))
def test_common_prefix_and_suffix_across_blocks(at: int, drop: int, insert: bytes) -> None:
    """``edit._common_prefix`` against a plain scan, with edits beyond its first 4 KB blocks."""
    from tui_tok.explore.edit import _common_prefix

    old = bytes(range(256)) * 120  # 30 KB, no long repeats near an edit
    at = min(at, len(old))
    new = old[:at] + insert + old[min(len(old), at + drop) :]

    def plain(x: bytes, y: bytes) -> int:
        n = 0
        while n < min(len(x), len(y)) and x[n] == y[n]:
            n += 1
        return n

    p = _common_prefix(old, new)
    assert p == plain(old, new)
    limit = min(len(old), len(new)) - p
    assert _common_prefix(old, new, from_end=True, limit=limit) == min(plain(old[::-1], new[::-1]), limit)
