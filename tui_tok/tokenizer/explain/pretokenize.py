"""The pre-tokenizer's chunks of a decoded BPE fragment, and which regex cut before each.

Runs the engine's own per-chunk splitter (``pretokenize/split.py``'s ``split_spans``: each of the
pre's regexes in turn, llama.cpp's custom splitters included) once per prefix of the regex list,
so a cut is credited to the first regex that made it. The final words are checked against
``split_words`` (the fast path the encoder uses).
"""

from __future__ import annotations

from collections.abc import Sequence

from tui_tok.tokenizer.explain.result import ExplainMismatchError
from tui_tok.tokenizer.pretokenize import regexes as rx
from tui_tok.tokenizer.pretokenize.split import split_spans, split_words

_NAMES = {rx.NEWLINES: "newline runs (custom splitter)", rx.GPT2: "GPT-2 (custom splitter)",
          rx.LLAMA3: "LLaMA 3 (custom splitter)", rx.LLAMA3_ORIGINAL: "LLaMA 3 (custom splitter)",
          rx.QWEN2: "Qwen2 (custom splitter)", rx.QWEN35: "Qwen3.5 (custom splitter)",
          rx.K2: "Kimi-K2 (custom splitter)", rx.AFMOE_DIGITS: "digit groups (custom splitter)",
          rx.TINY_AYA_DIGITS: "digit groups (custom splitter)"}  # fmt: skip


def rule_names(regexes: Sequence[str]) -> tuple[str, ...]:
    """A readable label per regex: the custom splitter's name, else the pattern itself."""
    return tuple(_NAMES.get(r, r) for r in regexes)


def words_with_cuts(text: str, regexes: Sequence[str]) -> list[tuple[int, int, int]]:
    """(start, end, rule) per word of ``text`` (code point offsets, empty words dropped);
    ``rule`` is the index of the regex that cut before the word (-1 for the first)."""
    if not text:
        return []
    first_cut: dict[int, int] = {}
    spans: list[tuple[int, int]] = [(0, len(text))]
    for k in range(len(regexes)):
        spans = split_spans(text, regexes[: k + 1])
        for a, _ in spans:
            first_cut.setdefault(a, k)
    words = [text[a:b] for a, b in spans]
    if words != split_words(text, regexes):
        raise ExplainMismatchError("pre-tokenizer: the per-regex split differs from the encoder's split")
    return [(a, b, first_cut[a] if a else -1) for a, b in spans if a < b]
