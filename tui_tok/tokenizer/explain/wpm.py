"""WPM explained: the words, each normalised and matched greedily, longest prefix first.

Uses the encoder's own classification (``_classify``: spaces end words, punctuation, symbols
and CJK are words alone, control characters vanish), its word cutter, its per-character
normalisation (lowercase, accent strip) and its prefix table of token bytes. Per word the
greedy walk is replayed with that table to show, at each step, the longest token taken and the
longest prefix that was still tried beyond it (a ``match``), or the byte of the ``▁``-word
where no token starts, which makes the whole word ``[UNK]`` (an ``unknown``); the ids are
checked against the encoder's ``_word_pieces``.

Chunks tile the fragment: words, and between them gaps (whitespace, dropped characters) with
no ids.
"""

from __future__ import annotations

from tui_tok.tokenizer.explain.result import Chunk, ExplainMismatchError, Step
from tui_tok.tokenizer.wpm.encoder import PHANTOM_SPACE, WpmEncoder, _word_spans, _words

RULES = ("whitespace (or dropped characters) ends a word", "punctuation, an ASCII symbol or a CJK character is a word alone")


def explain_fragment(enc: WpmEncoder, data: bytes) -> list[Chunk]:
    if not data:
        return []
    cps, classes, offs = enc._classify(data)  # noqa: SLF001 - the encoder's own classification
    starts, ends = _word_spans(classes)
    offsets = list(range(len(data) + 1)) if offs is None else [int(o) for o in offs]
    if len(offsets) == len(cps):
        offsets.append(len(data))
    words = _words(cps, starts, ends) if len(starts) else []
    chunks: list[Chunk] = []
    pos = 0
    for word, a, b in zip(words, starts.tolist(), ends.tolist()):
        wa, wb = offsets[a], offsets[b]
        if wa > pos:
            chunks.append(Chunk(pos, wa, (), (), cut=0 if chunks else -1, text=data[pos:wa].decode("utf-8", "replace")))
        chunks.append(_word(enc, word, wa, offsets[a : b + 1], cut=-1 if not chunks else (0 if wa > pos else 1)))
        pos = wb
    if pos < len(data):
        chunks.append(Chunk(pos, len(data), (), (), cut=0 if chunks else -1, text=data[pos:].decode("utf-8", "replace")))
    return chunks


def _word(enc: WpmEncoder, word: str, start: int, char_at: list[int], cut: int) -> Chunk:
    """One word: its ``▁`` form, then each greedy match (or the unknown)."""
    tokens = enc.vocab.tokens
    kept_at: list[int] = []  # byte of the ▁-word where each kept character starts
    parts = [PHANTOM_SPACE.encode()]
    size = len(parts[0])
    char_of_byte: list[int] = []  # for each byte of the ▁-word: its character in ``word`` (-1: the ▁)
    char_of_byte += [-1] * size
    for idx, ch in enumerate(word):
        norm = enc._normalise(ch)  # noqa: SLF001
        if norm is None:
            continue
        enc_bytes = norm.encode("utf-8", "surrogatepass")
        kept_at.append(size)
        parts.append(enc_bytes)
        char_of_byte += [idx] * len(enc_bytes)
        size += len(enc_bytes)
    data = b"".join(parts)
    prefixes = enc._prefix_table()  # noqa: SLF001
    end_byte = char_at[-1]
    steps = [Step("word", token=data.decode("utf-8", "replace"), start=start, end=end_byte)]
    i = 0
    ids: list[int] = []
    while i < len(data):
        best, best_end, j = -1, i, i + 1
        while j <= len(data):
            tid = prefixes.get(data[i:j])
            if tid is None:
                break
            if tid >= 0:
                best, best_end = tid, j
            j += 1
        if best < 0:
            ids = [enc.unk_id]
            steps = steps[:1] + [Step("unknown", token=word, id=enc.unk_id, start=start, end=end_byte, at=i)]
            break
        tried = data[i : j - 1] if j - 1 > best_end else b""
        steps.append(Step("match", token=tokens[best], id=best, start=_byte_of(char_of_byte, char_at, i, start),
                          end=_byte_of(char_of_byte, char_at, best_end, end_byte), rival=tried.decode("utf-8", "replace")))  # fmt: skip
        ids.append(best)
        i = best_end
    real = [t for t, _, _ in enc._word_pieces(word)]  # noqa: SLF001
    if ids != real:
        raise ExplainMismatchError(f"WPM word {word!r}: greedy replay {ids} != encoder {real}")
    return Chunk(start, end_byte, tuple(ids), tuple(steps), cut=cut, text=data.decode("utf-8", "replace"))


def _byte_of(char_of_byte: list[int], char_at: list[int], pos: int, default: int) -> int:
    """Input byte where ▁-word byte ``pos`` (a boundary) falls: its character's start."""
    if pos >= len(char_of_byte):
        return default
    c = char_of_byte[pos]
    return char_at[0] if c < 0 else char_at[c]
