"""WPM explained: the words, each normalised and matched greedily, longest prefix first.

The trace is ``wpm/reference.py``'s own: ``on_word`` gives each word (its input span, its
``▁``-form and where each of its bytes comes from), ``on_match`` each token the greedy walk
takes, ``on_unknown`` the byte of the ``▁``-word where no token starts, which makes the whole
word ``[UNK]``. For each match, the view also shows the longest prefix of the rest that some
token still begins with beyond the match (what the walk tried and lost: a prefix table of the
token texts, built here for that only).

Chunks tile the fragment: words, and between them gaps (whitespace, dropped characters) with
no ids.
"""

from __future__ import annotations

from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.explain.engine import cached
from tui_tok.tokenizer.explain.result import Chunk, Step
from tui_tok.tokenizer.wpm.reference import ReferenceEncoder, WpmWord

RULES = (
    "whitespace (or dropped characters) ends a word",
    "punctuation, an ASCII symbol or a CJK character is a word alone",
)


def explain_fragment(ref: ReferenceEncoder, data: bytes) -> list[Chunk]:
    if not data:
        return []
    tokens = ref.vocab.tokens
    prefixes = _prefix_table(ref.vocab)
    words: list[tuple[WpmWord, list[Step], list[int]]] = []

    def on_word(w: WpmWord) -> None:
        words.append((w, [Step("word", token=w.text.decode("utf-8", "replace"), start=w.start, end=w.end)], []))

    def on_match(tid: int, at: int, end: int) -> None:
        w, steps, ids = words[-1]
        j = at + 1  # the longest prefix some token begins with
        while j <= len(w.text) and w.text[at:j] in prefixes:
            j += 1
        tried = w.text[at : j - 1] if j - 1 > end else b""
        steps.append(Step("match", token=tokens[tid], id=tid, start=w.byte_at[at],
                          end=w.byte_at[end] if end < len(w.text) else w.end, rival=tried.decode("utf-8", "replace")))  # fmt: skip
        ids.append(tid)

    def on_unknown(at: int) -> None:
        w, steps, ids = words[-1]
        del steps[1:]
        ids[:] = [ref.vocab.unk_id]
        steps.append(Step("unknown", token=w.word, id=ref.vocab.unk_id, start=w.start, end=w.end, at=at))

    ref.encode_fragment(data, after_special=True, on_word=on_word, on_match=on_match, on_unknown=on_unknown)
    chunks: list[Chunk] = []
    pos = 0
    for w, steps, ids in words:
        if w.start > pos:
            chunks.append(
                Chunk(
                    pos, w.start, (), (), cut=0 if chunks else -1, text=data[pos : w.start].decode("utf-8", "replace")
                )
            )
        cut = -1 if not chunks else (0 if w.start > pos else 1)
        chunks.append(Chunk(w.start, w.end, tuple(ids), tuple(steps), cut=cut, text=w.text.decode("utf-8", "replace")))
        pos = w.end
    if pos < len(data):
        chunks.append(
            Chunk(pos, len(data), (), (), cut=0 if chunks else -1, text=data[pos:].decode("utf-8", "replace"))
        )
    return chunks


def _prefix_table(vocab: Vocab) -> frozenset[bytes]:
    """Every prefix of every token's bytes (~50 ms for 30k tokens; kept per vocab)."""

    def build() -> frozenset[bytes]:
        raws = [t.encode("utf-8", "surrogateescape") for t in vocab.tokens]
        return frozenset(raw[:k] for raw in raws for k in range(1, len(raw) + 1))

    return cached(vocab, "wpm-prefixes", build)
