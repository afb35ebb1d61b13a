"""Where raw (SentencePiece-style) BPE words can be cut before ▁ without changing their merges.

gemma4's pre-tokenizer keeps whole lines as words (spaces are escaped to U+2581 ▁), so the word
cache rarely hits and merges run on long words. But a symbol only ever spans "c▁" if some merge's
text contains "c▁" (every multi-character symbol is a merge's concatenation), so cutting a word
before each ▁ that follows a character c with no such merge keeps every merge inside one part:
BPE of the parts, concatenated, is BPE of the word. Tests check it on gemma-4 with Hypothesis.

Leaves out: deciding when the cut is worth building (``bpe/encoder.py``) and the merging itself.

A fast path: what it computes equals ``bpe/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).

>>> cut = build_subword_cut("\\x00\u2581 y\\x00x \u2581y\\x00", 2)
>>> cut.split("x\u2581ya\u2581b")
['x\u2581ya', '\u2581b']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tui_tok.tokenizer.arrays.sorted_unique import sorted_unique

_SPACE, _ESCAPED = 0x20, 0x2581


@dataclass(frozen=True, slots=True)
class SubwordCut:
    """The characters after which ▁ never starts a part (``glued``), as a regex and a table."""

    pattern: re.Pattern[str]
    """Splits one word: a zero-width match before each ▁ not preceded by a glued character."""
    glued: np.ndarray
    """Code points the cut never follows (sorted uint32; NUL always among them)."""

    def split(self, word: str) -> list[str]:
        """One word cut before each ▁ that may start a part."""
        return self.pattern.split(word)

    def cut_words(self, text: str, words: list[str]) -> list[str]:
        """``words`` (the pre-tokenizer's words of ``text``) each cut by ``split``; when they tile
        ``text``, found in one pass over the whole text (a word's first ▁ has no previous
        character in the word, but a word start is a cut anyway)."""
        if sum(map(len, words)) != len(text):
            return [part for word in words for part in self.split(word)]
        cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        at = np.flatnonzero(cps[1:] == _ESCAPED) + 1
        at = at[~np.isin(cps[at - 1], self.glued)]
        if not len(at):
            return words
        ends = np.cumsum(np.fromiter(map(len, words), dtype=np.int64, count=len(words)))
        bounds = [0, *sorted_unique(np.concatenate((ends, at)), runs=True).tolist()]
        return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def build_subword_cut(merges_joined: str, n_merges: int) -> SubwordCut | None:
    """The cut for merges given as ``"\\0" + "\\0".join(merges) + "\\0"``; None unless every merge
    has the plain ``"left right"`` form (one ' ', not first), which the scan relies on."""
    cps = np.frombuffer(merges_joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)[1:-1]
    space = cps == _SPACE
    nul = cps == 0
    # separators in order must alternate ' ', NUL, ' ', ...: exactly one ' ' in every merge (a
    # count alone passes a merge with none beside one with two); and no merge starts with ' '
    seps = cps[np.flatnonzero(space | nul)]
    if len(seps) != 2 * n_merges - 1 or (seps[0::2] != _SPACE).any() or seps[1::2].any():
        return None
    if space[0] or (space[1:] & nul[:-1]).any():
        return None
    at = np.flatnonzero(cps[1:] == _ESCAPED) + 1  # every ▁ but a first character
    before = cps[at - 1]
    across = before == _SPACE  # "c ▁": left ends in c, right starts with ▁
    before[across] = cps[at[across] - 2]
    seen = np.flatnonzero(np.bincount(before))  # every character seen before a ▁
    glued = sorted(set(map(chr, seen.tolist())) | {"\x00"})
    body = "".join(map(re.escape, glued))
    return SubwordCut(re.compile(f"(?<=[^{body}])(?=\u2581)", re.S), np.array(list(map(ord, glued)), dtype=np.uint32))
