"""SPM explained: symbol merges by score, then byte fallback of symbols that are no token.

The trace is ``spm/reference.py``'s own (prefix space, ``▁`` for every space, one symbol per
character, llama.cpp's merge queue over the whole fragment): its ``on_merge`` hook gives each
applied merge, ``on_symbols`` the initial and final symbols. For reading, the fragment is shown in
chunks: ``spm/chunks.py``'s coarse cuts, before a run of ``▁`` where no token holds "X▁", which
no merge can cross; each merge falls in one chunk and within a chunk the order is the
fragment's. A fragment that is not valid UTF-8 is one chunk with lead-byte symbols. Each final
symbol that is no token becomes its ``<0xHH>`` byte tokens (a ``bytes`` step).
"""

from __future__ import annotations

from bisect import bisect_right

from tui_tok.tokenizer.explain.engine import LivePositions, cached
from tui_tok.tokenizer.explain.result import Chunk, ExplainMismatchError, Step
from tui_tok.tokenizer.spm.chunks import Chunker
from tui_tok.tokenizer.spm.reference import ReferenceEncoder

ESC = "\u2581"
RULES = ("a run of ▁ (spaces) no token crosses: no merge can join across it",)

_Merge = tuple[str, str, float, int, int]


def explain_fragment(ref: ReferenceEncoder, data: bytes, *, after_special: bool) -> list[Chunk]:
    """Chunks of one raw fragment with their merges; offsets relative to ``data``."""
    prefix = ref.vocab.add_space_prefix and after_special
    full = b" " + data if prefix else data
    if not full:
        return []
    merges: list[_Merge] = []
    symbols: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    pieces = ref.encode_fragment(
        data, after_special=after_special,
        on_merge=lambda *m: merges.append(m), on_symbols=lambda a, b: symbols.append((a, b)),
    )  # fmt: skip
    initial, final = symbols[0]
    # each final symbol is one token, or (no token: one character) its byte tokens
    t2id = ref.vocab.token_to_id
    counts = [1 if sym in t2id else len(sym.encode("utf-8", "surrogateescape")) for sym in final]
    if sum(counts) != len(pieces):
        raise ExplainMismatchError("SPM: the reference's final symbols do not account for its tokens")
    try:
        decoded = full.decode("utf-8")
    except UnicodeDecodeError:
        decoded = None
    texts = [full.decode("utf-8", "surrogateescape")] if decoded is None else _chunker(ref).coarse(decoded)
    # chunk k holds initial symbols [bounds[k], bounds[k + 1]); with bad UTF-8 there is one chunk
    bounds = [0]
    for chunk_text in texts[:-1]:
        bounds.append(bounds[-1] + len(chunk_text))
    live = LivePositions()
    steps: list[list[Step]] = [[] for _ in texts]
    for left, right, score, li, ri in merges:
        k = bisect_right(bounds, li) - 1
        at = live.merge(li, ri) - live.before(bounds[k])
        steps[k].append(Step("merge", left=left, right=right, score=score, at=at))
    chunks: list[Chunk] = []
    pos = -1 if prefix else 0  # byte offset in data
    sym_at = tok_at = 0
    for k, text in enumerate(texts):
        n_chars = len(text) if decoded is not None else sum(map(len, final))  # bad UTF-8: every symbol
        mine: list[str] = []
        covered = 0
        while sym_at < len(final) and covered < n_chars:
            mine.append(final[sym_at])
            covered += len(final[sym_at])
            sym_at += 1
        n_tok = sum(counts[sym_at - len(mine) : sym_at])
        ids = tuple(p[0] for p in pieces[tok_at : tok_at + n_tok])
        fallback, t = [], tok_at
        for sym, c in zip(mine, counts[sym_at - len(mine) : sym_at]):
            if sym not in t2id:
                fallback.append(Step("bytes", token=sym, ids=tuple(p[0] for p in pieces[t : t + c])))
            t += c
        tok_at += n_tok
        if decoded is None:
            chunks.append(Chunk(0, len(data), ids, tuple(steps[0] + fallback), text=text.replace(" ", ESC),
                                symbols=initial, final=tuple(mine), shortcut="not valid UTF-8: symbols cut by lead byte"))  # fmt: skip
            break
        end = pos + len(text.encode())
        chunks.append(Chunk(max(pos, 0), end, ids, tuple(steps[k] + fallback), cut=0 if k else -1,
                            text=text.replace(" ", ESC), symbols=tuple(text.replace(" ", ESC)), final=tuple(mine)))  # fmt: skip
        pos = end
    return chunks


def _chunker(ref: ReferenceEncoder) -> Chunker:
    return cached(ref.vocab, "spm-chunker", lambda: Chunker(ref.vocab.tokens))
