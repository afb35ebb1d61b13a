"""Long test texts: thousands of characters joined from pieces, so the encoders' big-input paths
(batches of new words, whole-array rounds for a huge word, UGM's whole-text ids) run.

The property tests draw them (``LONG_TEXT``) and ``test_paths.py`` checks, with the same
generator, that those paths are reached in ``"auto"`` mode.
"""

from __future__ import annotations

import random

from hypothesis import strategies as st

_LETTERS = "abcdefghijklmnopqrstuvwxyzéü"
_FIXED = [
    " ", "  ", "\n", "\n\n", "\t", ", ", ". ", "'s", "1", "42", "2024", "中文", "日本語", "🦙", "\u2581", "\u00a0",
    "<s>", "</s>", "<|endoftext|>", "<|im_end|>", "<mask>", "[CLS]", "café", "naïve", "Hello", " world",
]  # fmt: skip
_HUGE = (" " * 1100, "a" * 1100, "\n" * 1100, "ab" * 600)
"""Words of over 1024 symbols: whole-array merge rounds (``Paths.rounds_from``)."""


def long_text(rng: random.Random, size: int) -> str:
    """About ``size`` characters: new words (random letters, so a text has many distinct ones),
    whitespace, digits, scripts, special-token texts, now and then a huge word."""
    out: list[str] = []
    n = 0
    while n < size:
        roll = rng.random()
        if roll < 0.45:
            piece = " " + "".join(rng.choice(_LETTERS) for _ in range(rng.randint(1, 9)))
        elif roll < 0.997:
            piece = rng.choice(_FIXED)
        else:
            piece = rng.choice(_HUGE)
        out.append(piece)
        n += len(piece)
    return "".join(out)


LONG_TEXT = st.builds(
    lambda seed, size: long_text(random.Random(seed), size), st.integers(0, 2**32), st.integers(2000, 8000)
)
"""Texts of 2,000 to ~9,000 characters from a drawn seed (Hypothesis records the seed, not each
character: small examples, reproducible); keep ``max_examples`` small where this is drawn."""
