"""Where SPM input can be cut into independently encoded chunks without changing the result.

In llama.cpp's SPM merge loop every symbol ever formed is either one character or a token, so two
neighbouring characters X, Y can end up in the same symbol only if some token (of any type)
contains "XY". Cutting the (space-escaped) text between X and Y when no token contains "XY" is
therefore exact: the merges on each side are the same as in the whole, and no merge crosses the cut.
Chunks repeat a lot in real text, so ``spm/encoder.py`` caches their encodings.

Two levels of cuts, both exact:

- ``coarse``: before each run of ▁ (space or literal U+2581), unless the character before it
  ends a "X▁" inside some token (gemma's ``>▁</``); cheap, needs only the set of such X;
- ``fine``: inside a coarse chunk, at edges of letter runs where the two neighbours occur side by
  side in no token (most punctuation, digits, newlines ...). Needs the set of all adjacent character
  pairs of the vocab, built with numpy over every token, so callers ask for it
  only once enough distinct chunks have been seen.

Works on ``str`` (valid UTF-8 input only); does not encode anything.

A fast path: what it computes equals ``spm/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).
"""

from __future__ import annotations

import re

import numpy as np

from tui_tok.tokenizer.arrays.sorted_unique import sorted_unique

ESC = "\u2581"
_RUN_RE = re.compile("[ \u2581]*[^ \u2581]+|[ \u2581]+")
_LETTERS_OR_CHAR = re.compile(r"[^\W\d_]+|.", re.DOTALL)


class Chunker:
    """Exact cut points for one vocab's token texts."""

    def __init__(self, tokens: list[str]) -> None:
        self._tokens = tokens
        self._bad_prev: frozenset[str] | None = None
        self._pairs: frozenset[str] | None = None

    def prepare(self) -> None:
        """Build the table ``coarse`` needs now rather than at its first text."""
        if self._bad_prev is None:
            self._bad_prev = _bad_prev_chars(self._tokens)

    def coarse(self, text: str) -> list[str]:
        """``text`` (plain spaces, not yet escaped) cut before ▁ runs; the pieces concatenate to it."""
        chunks = _RUN_RE.findall(text)
        self.prepare()
        bad = self._bad_prev
        if bad and len(chunks) > 1:
            merged = [chunks[0]]
            for c in chunks[1:]:
                if merged[-1][-1] in bad:
                    merged[-1] += c
                else:
                    merged.append(c)
            chunks = merged
        return chunks

    def fine(self, chunk: str) -> list[str]:
        """``chunk`` cut where two neighbours that no token has side by side meet at the edge of a
        letter run (cuts inside letter runs are rare and skipping them is still exact)."""
        pairs = self._pairs
        if pairs is None:
            pairs = self._pairs = vocab_pairs(self._tokens)
        runs = _LETTERS_OR_CHAR.findall(chunk)
        if len(runs) == 1:
            return runs
        out = []
        current = runs[0]
        for run in runs[1:]:
            left = current[-1]
            right = run[0]
            pair = (ESC if left == " " else left) + (ESC if right == " " else right)
            if pair in pairs:
                current += run
            else:
                out.append(current)
                current = run
        out.append(current)
        return out


def vocab_pairs(tokens: list[str]) -> frozenset[str]:
    """Every two neighbouring characters in any token text."""
    joined = "\x00".join(tokens).encode("utf-32-le", "surrogatepass")
    cps = np.frombuffer(joined, dtype=np.uint32).astype(np.uint64)
    codes = sorted_unique((cps[:-1] << np.uint64(32)) | cps[1:]).tolist()
    # pairs with the NUL separator are harmless extras: they only make cuts rarer
    return frozenset(chr(c >> 32) + chr(c & 0xFFFFFFFF) for c in codes)


def _bad_prev_chars(tokens: list[str]) -> frozenset[str]:
    """Characters X (not ▁) such that some token contains "X▁" (one numpy pass over all texts; the
    NUL separator may add NUL itself, which only makes cuts rarer)."""
    joined = "\x00".join(tokens).encode("utf-32-le", "surrogatepass")
    cps = np.frombuffer(joined, dtype=np.uint32)
    before = cps[:-1][cps[1:] == 0x2581]
    return frozenset(map(chr, sorted_unique(before[before != 0x2581]).tolist()))
