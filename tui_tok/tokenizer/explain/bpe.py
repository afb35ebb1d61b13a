"""BPE explained: each word's merges in llama.cpp's order, with their ranks.

The trace is ``bpe/reference.py``'s own: its ``on_merge`` hook gives each applied merge and its
``on_word`` hook each word (vocab spelling, whole-word shortcut, initial and final symbols, ids);
the pre-tokenizer's words are labelled with the regex that cut before each
(``explain/pretokenize.py``). Nothing of the algorithm is repeated here.

A step is ``left``, ``right`` and ``rank`` with ``merges[rank] == left + " " + right``; a
word of n symbols that ends as m symbols has n - m steps.
"""

from __future__ import annotations

from tui_tok.tokenizer.bpe.reference import BpeWord, ReferenceEncoder
from tui_tok.tokenizer.explain.engine import LivePositions
from tui_tok.tokenizer.explain.pretokenize import words_with_cuts
from tui_tok.tokenizer.explain.result import Chunk, ExplainMismatchError, Step
from tui_tok.tokenizer.pretokenize.offsets import decode


def explain_fragment(ref: ReferenceEncoder, data: bytes) -> list[Chunk]:
    """Chunks (words) of one raw fragment with their merges; offsets relative to ``data``."""
    model = ref.vocab.model
    if model in ("hybriddna", "whitespace"):
        ids = tuple(t for t, _, _ in ref.encode_fragment(data, after_special=True))
        return [Chunk(0, len(data), ids, (), text=data.decode("utf-8", "replace"),
                      shortcut=f"model {model}: its own word rules, merges not traced")]  # fmt: skip
    text, _ = decode(data, escape=ref.vocab.escape_whitespaces, offsets=False)
    cuts = [cut for _, _, cut in words_with_cuts(text, ref.spec.regexes)]
    chunks: list[Chunk] = []
    steps: list[Step] = []
    live = [LivePositions()]

    def on_merge(left: str, right: str, rank: int, left_index: int, right_index: int) -> None:
        steps.append(Step("merge", left=left, right=right, rank=rank, at=live[0].merge(left_index, right_index)))

    def on_word(w: BpeWord) -> None:
        if len(chunks) >= len(cuts):
            raise ExplainMismatchError("BPE: the reference saw more words than the pre-tokenizer's split")
        chunks.append(Chunk(w.start, w.end, w.ids, tuple(steps), cut=cuts[len(chunks)], text=w.text,
                            symbols=w.symbols, final=w.final, shortcut=w.shortcut))  # fmt: skip
        steps.clear()
        live[0] = LivePositions()

    ref.encode_fragment(data, after_special=True, on_merge=on_merge, on_word=on_word)
    if len(chunks) != len(cuts):
        raise ExplainMismatchError("BPE: the reference's words differ from the pre-tokenizer's split")
    if chunks:  # the first chunk starts at the fragment start, the last ends at its end
        chunks[0] = _with_span(chunks[0], 0, chunks[0].end)
        chunks[-1] = _with_span(chunks[-1], chunks[-1].start, len(data))
    return chunks


def _with_span(c: Chunk, start: int, end: int) -> Chunk:
    return Chunk(start, end, c.ids, c.steps, c.cut, c.text, c.symbols, c.final, c.shortcut, c.detail)
