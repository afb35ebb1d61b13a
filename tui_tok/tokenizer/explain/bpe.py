"""BPE explained: each word's merges in llama.cpp's order, with their ranks.

Per raw fragment: the encoder's lenient decode (and ▁ escape), the pre-tokenizer's words with the
regex that cut before each (``explain/pretokenize.py``), then per word the encoder's own steps:
its vocab spelling (``_encoded``), the whole-word shortcut (``_shortcut``: ``ignore_merges``,
gemma4's newline runs), the initial symbols (one per byte for byte-level BPE, per character
otherwise), the merge loop traced (``explain/merge.py``) with the encoder's rank table and its
rule for symbols holding ' ', and the ids of the final symbols (``_to_ids``: missing symbols
fall back to byte tokens). Each word's ids are checked against ``bpe_word``.

A step is ``left``, ``right`` and ``rank`` with ``merges[rank] == left + " " + right``; a
word of n symbols that ends as m symbols has n - m steps.
"""

from __future__ import annotations

import numpy as np

from tui_tok.tokenizer.bpe.encoder import BpeEncoder, _raw_symbols
from tui_tok.tokenizer.core.spans import utf8_lens
from tui_tok.tokenizer.explain.merge import traced_merge
from tui_tok.tokenizer.explain.pretokenize import words_with_cuts
from tui_tok.tokenizer.explain.result import Chunk, ExplainMismatchError, Step
from tui_tok.tokenizer.pretokenize.offsets import decode


def explain_fragment(enc: BpeEncoder, data: bytes) -> list[Chunk]:
    """Chunks (words) of one raw fragment with their merges; offsets relative to ``data``."""
    if enc.vocab.model in ("hybriddna", "whitespace"):
        ids = tuple(t for t, _, _ in enc.encode_fragment(data, after_special=True))
        return [Chunk(0, len(data), ids, (), text=data.decode("utf-8", "replace"),
                      shortcut=f"model {enc.vocab.model}: its own word rules, merges not traced")]  # fmt: skip
    text, omap = decode(data, escape=enc.vocab.escape_whitespaces)
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    ends = np.concatenate(([0], np.cumsum(utf8_lens(cps)))) if len(cps) else np.zeros(1, dtype=np.int64)
    at = (omap[ends] if omap is not None else ends).tolist()  # input offset of each char boundary
    ranks = enc.merge_ranks()
    get = ranks.get
    if enc.spec.byte_encode:

        def priority(a: str, b: str) -> int | None:
            return get(a + " " + b)

    else:

        def priority(a: str, b: str) -> int | None:  # llama.cpp splits "left right" at its first ' ' from byte 1
            return None if " " in a[1:] else get(a + " " + b)

    chunks: list[Chunk] = []
    for a, b, cut in words_with_cuts(text, enc.spec.regexes):
        chunks.append(_word(enc, text[a:b], at[a], at[b], cut, priority))
    if chunks:  # the first chunk starts at the fragment start, the last ends at its end
        chunks[0] = _with_span(chunks[0], 0, chunks[0].end)
        chunks[-1] = _with_span(chunks[-1], chunks[-1].start, len(data))
    return chunks


def _with_span(c: Chunk, start: int, end: int) -> Chunk:
    return Chunk(start, end, c.ids, c.steps, c.cut, c.text, c.symbols, c.final, c.shortcut, c.detail)


def _word(enc: BpeEncoder, word: str, start: int, end: int, cut: int, priority) -> Chunk:  # noqa: ANN001
    encoded = enc._encoded(word)  # noqa: SLF001 - the encoder's own spelling
    shortcut = ""
    steps: list[tuple[str, str, float, int]]
    if enc._shortcut(encoded):  # noqa: SLF001
        symbols = [encoded]
        final, steps = symbols, []
        shortcut = "ignore_merges: the whole word is a token" if enc.vocab.ignore_merges else "gemma4: a newline run that is a token"
    else:
        symbols = list(encoded) if enc.spec.byte_encode else _raw_symbols(word)
        final, steps = traced_merge(symbols, priority)
    ids, _ = enc._to_ids(list(final))  # noqa: SLF001
    if ids != enc.bpe_word(word)[0]:
        raise ExplainMismatchError(f"BPE word {word!r}: traced merges give {ids}, the encoder {enc.bpe_word(word)[0]}")
    return Chunk(
        start, end, tuple(t for t in ids if t >= 0),
        tuple(Step("merge", left=left, right=right, rank=int(rank), at=pos) for left, right, rank, pos in steps),
        cut=cut, text=encoded, symbols=tuple(symbols), final=tuple(final), shortcut=shortcut,
    )  # fmt: skip
