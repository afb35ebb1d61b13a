"""Chunk cuts for the Tokens view (``explore/chunk_marks.py``): the engine's chunk starts in
characters, carried over edits, and the underline parity of each drawn row."""

from __future__ import annotations

from functools import cache

import numpy as np
from hypothesis import example, given, settings, strategies as st

from support import ASSETS
from tui_tok import read_gguf
from tui_tok.explore.chunk_marks import (
    ChunkMarks,
    carry_marks,
    char_offsets,
    chunk_marks,
    common_prefix,
    common_suffix,
    row_cuts,
)
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer import Tokenizer
from tui_tok.tokenizer.explain import explain


@cache
def _tok(name: str) -> Tokenizer:
    return load_tokenizer(read_gguf(ASSETS / name))


def _utf8(text: str) -> bytes:
    return b"".join(
        c.encode("utf-8", "surrogateescape" if 0xDC80 <= ord(c) <= 0xDCFF else "surrogatepass") for c in text
    )


def _expected_starts(text: str, tok: Tokenizer, parse_special: bool) -> list[int]:
    """Chunk and fragment starts straight from the explanation, mapped to characters one by one."""
    expl = explain(tok, text, parse_special=parse_special)
    byte_starts = {f.start for f in expl.fragments} | {c.start for f in expl.fragments for c in f.chunks}
    char_at = {len(_utf8(text[:i])): i for i in range(len(text) + 1)}
    return sorted(char_at[b] for b in byte_starts if b > 0)


def test_marks_are_the_explanations_chunk_starts_in_characters() -> None:
    text = "Hello world! It's 12345 ok\n  日本語 🙂 naïve<|im_start|>user\n\tx = 42"
    tok = _tok("qwen3-vocab.gguf")
    for parse_special in (False, True):
        marks = chunk_marks(explain(tok, text, parse_special=parse_special), text)
        assert marks.text is text
        assert marks.starts.tolist() == _expected_starts(text, tok, parse_special)
    # parsed, the special token is one fragment (no cut inside it); as text, the regex cuts it up
    at, end = text.index("<|im_start|>"), text.index("user")
    on = chunk_marks(explain(tok, text, parse_special=True), text).starts.tolist()
    off = chunk_marks(explain(tok, text, parse_special=False), text).starts.tolist()
    assert at in on and end in on and not [m for m in on if at < m < end]
    assert [m for m in off if at < m < end]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from(" \n\t'1é日🙂"), max_size=40))
def test_marks_match_the_explanation_on_random_text(text: str) -> None:
    for name in ("qwen3-vocab.gguf", "ggml-vocab-phi-3.gguf"):
        tok = _tok(name)
        assert chunk_marks(explain(tok, text), text).starts.tolist() == _expected_starts(text, tok, False)


@given(st.text(alphabet=st.sampled_from("ab\udc80\ud800é日🙂"), max_size=20))
def test_char_offsets_follow_the_tokenizers_bytes(text: str) -> None:
    """Every character start maps back to its index, also with lone surrogates (one raw byte
    for U+DC80-U+DCFF, three bytes for the others)."""
    starts = [len(_utf8(text[:i])) for i in range(len(text) + 1)]
    assert char_offsets(text, np.array(starts, dtype=np.int64)).tolist() == list(range(len(text) + 1))


@given(st.text(alphabet="ab\n", max_size=30), st.text(alphabet="ab\n", max_size=30))
def test_common_prefix_and_suffix(a: str, b: str) -> None:
    p = common_prefix(a, b)
    assert a[:p] == b[:p] and (p == min(len(a), len(b)) or a[p] != b[p])
    limit = min(len(a), len(b)) - p
    s = common_suffix(a, b, limit)
    assert s <= limit and a[len(a) - s :] == b[len(b) - s :]
    assert s == limit or a[len(a) - s - 1] != b[len(b) - s - 1]


@given(
    st.text(alphabet="ab \n", max_size=20),
    st.text(alphabet="ab \n", max_size=6),
    st.text(alphabet="xy", max_size=6),
    st.text(alphabet="ab \n", max_size=20),
    st.lists(st.integers(1, 60), max_size=12),
)
@example("", "aaaa", "", "aaaaa", [8])  # 'aaaaaaaaa' -> 'aaaaa': the whole change reads as a cut-off end
def test_carried_marks_keep_the_unchanged_ends(
    head: str, old_mid: str, new_mid: str, tail: str, raw: list[int]
) -> None:
    """Cuts before the edit stay put, cuts in the text after it move by the length change."""
    old, new = head + old_mid + tail, head + new_mid + tail
    starts = np.array(sorted({m for m in raw if m <= len(old)}), dtype=np.int64)
    carried = carry_marks(ChunkMarks(old, starts), new)
    assert carried.text == new
    got = carried.starts.tolist()
    assert got == sorted(got) and all(0 < m <= len(new) for m in got)
    # the edit is the part between the longest common prefix and the longest common suffix
    # after it (where head, mid and tail share characters, the mid the test drew is not the
    # only reading of the edit: 'aaaaaaaaa' -> 'aaaaa' ends in a common prefix)
    prefix = common_prefix(old, new)
    suffix = common_suffix(old, new, min(len(old), len(new)) - prefix)
    assert prefix >= len(head)
    for m in starts.tolist():
        if m < prefix:
            assert m in got
        if m >= len(old) - suffix and m - len(old) + len(new) > 0:
            assert m - len(old) + len(new) in got
    assert carry_marks(ChunkMarks(old, starts), old).starts.tolist() == starts.tolist()


@settings(max_examples=150)
@given(st.text(alphabet="ab\n", min_size=1, max_size=30), st.lists(st.integers(1, 30), max_size=15), st.integers(1, 6))
def test_row_cuts_underline_every_other_chunk_of_a_line(text: str, raw: list[int], width: int) -> None:
    """Per character: underlined iff an odd number of cuts lie after its line's start, up to it."""
    cuts = np.array(sorted({m for m in raw if m < len(text)}), dtype=np.int64)
    line_starts = np.array([0] + [i + 1 for i, c in enumerate(text) if c == "\n"], dtype=np.int64)
    # rows of up to `width` characters, never across a line start (as ``layout.wrap_rows`` makes them)
    bounds = sorted({*range(0, len(text), width), *line_starts.tolist(), len(text)})
    starts = np.array(bounds[:-1], dtype=np.int64)
    ends = np.array(bounds[1:], dtype=np.int64)
    for (parity, rel), a, b in zip(row_cuts(cuts, line_starts, starts, ends), starts.tolist(), ends.tolist()):
        state = parity
        for ch in range(a, b):
            if ch - a in rel:
                state ^= 1
            line = max(ls for ls in line_starts.tolist() if ls <= ch)
            expected = sum(1 for m in cuts.tolist() if line < m <= ch) % 2
            assert state == expected, (ch, a, b)
        assert all(a < a + r < b for r in rel)
