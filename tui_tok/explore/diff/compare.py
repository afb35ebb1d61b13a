"""A GGUF tokenizer against its Hugging Face original: one text, or many fuzzed texts shrunk to minimal mismatches.

The GGUF side runs with ``parse_special=True`` (HF always matches added tokens, and llama.cpp's
test-tokenizer-random.py does the same); tokens are compared by id. Each mismatching text is cut
down with ``shrink`` to a minimal text whose ids still differ, and ``known.explain`` names it
when it is a difference llama.cpp is known to have.

Does not print: the CLI and the compare screen show the reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui_tok.explore.diff.fuzz import fuzz_texts
from tui_tok.explore.diff.pair import HfPair
from tui_tok.explore.diff.shrink import shrink
from tui_tok.explore.diff.text_diff import TextDiff

if TYPE_CHECKING:
    from tui_tok.explore.diff.known import Known

MAX_MISMATCHES = 20
"""A fuzz run stops shrinking after this many distinct minimal texts."""


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A text on which the two disagree, and the minimal text it shrank to."""

    text: str
    """The generated text that first showed this mismatch."""
    minimal: str
    """The shrunk text: still differs, and removing any one code point makes it agree."""
    diff: TextDiff
    """The comparison of ``minimal``."""
    known: Known | None
    """The known difference it is, when recognised."""

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "minimal": self.minimal, "known": None if self.known is None else self.known.to_json(),
                **self.diff.to_json()}  # fmt: skip


@dataclass(frozen=True, slots=True)
class FuzzReport:
    tested: int
    """Texts compared."""
    failing: int
    """Texts whose ids differed."""
    mismatches: tuple[Mismatch, ...]
    """Distinct minimal mismatches (at most ``MAX_MISMATCHES``)."""

    def to_json(self) -> dict[str, Any]:
        return {"same": self.failing == 0, "tested": self.tested, "failing": self.failing,
                "mismatches": [m.to_json() for m in self.mismatches]}  # fmt: skip


def minimal_mismatch(pair: HfPair, text: str) -> Mismatch:
    """Shrink ``text`` (whose ids differ) and name what is left."""
    from tui_tok.explore.diff.known import explain

    small = shrink(text, pair.differs)
    return Mismatch(text, small, pair.diff(small), explain(pair, small))


def fuzz(pair: HfPair, n: int, *, seed: int = 0, max_mismatches: int = MAX_MISMATCHES,
         progress: Callable[[int], None] | None = None) -> FuzzReport:  # fmt: skip
    """Compare ``n`` texts from ``fuzz_texts``; shrink each new mismatch (one per minimal text)."""
    added = [a.content for a in pair.hf.added]
    texts = fuzz_texts(n, seed=seed, vocab=pair.hf.vocab_words(), added=added, stored=pair.hf.stored_texts())
    found: dict[str, Mismatch] = {}
    failing = 0
    for k, text in enumerate(texts):
        if progress is not None:
            progress(k)
        if not pair.differs(text):
            continue
        failing += 1
        if len(found) < max_mismatches:
            m = minimal_mismatch(pair, text)
            found.setdefault(m.minimal, m)
    return FuzzReport(len(texts), failing, tuple(found.values()))
