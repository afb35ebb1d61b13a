"""SPM explained: symbol merges by score, then byte fallback of symbols that are no token.

Per raw fragment, as ``spm/encoder.py`` runs it: the prefix space (``add_space_prefix`` after a
special token or at the start), every ' ' as ``▁``, one symbol per character, then llama.cpp's
merge loop traced (``explain/merge.py``): the adjacent pair whose concatenation is a token with
the highest score merges first, ties to the leftmost. Chunks are the encoder's coarse cuts
(``spm/chunks.py``: before a run of ``▁`` where no token holds "X▁", so no merge can cross
them; llama.cpp merges the whole fragment, and within a chunk the order is the same).
A fragment that is not valid UTF-8 is one chunk with lead-byte symbols (``spm/exact.py``).
Each final symbol that is no token becomes its ``<0xHH>`` byte tokens (a ``bytes`` step).
"""

from __future__ import annotations

from tui_tok.tokenizer.explain.merge import traced_merge
from tui_tok.tokenizer.explain.result import Chunk, ExplainMismatchError, Step
from tui_tok.tokenizer.spm.encoder import SpmEncoder
from tui_tok.tokenizer.spm.exact import _utf8_len, encode_exact
from tui_tok.tokenizer.spm.merge import merge_str

ESC = "\u2581"
RULES = ("a run of ▁ (spaces) no token crosses: no merge can join across it",)


def explain_fragment(enc: SpmEncoder, data: bytes, *, after_special: bool) -> list[Chunk]:
    """Chunks of one raw fragment with their merges; offsets relative to ``data``."""
    prefix = enc._add_space_prefix and after_special  # noqa: SLF001 - the encoder's own flag
    full = b" " + data if prefix else data
    if not full:
        return []
    t2id = enc._t2id  # noqa: SLF001
    scores = enc._scores  # noqa: SLF001
    try:
        decoded = full.decode("utf-8")
    except UnicodeDecodeError:
        return [_exact(enc, full, len(data), prefix, t2id, scores)]

    def priority(a: str, b: str) -> float | None:
        tid = t2id.get(a + b)
        return None if tid is None else -scores[tid]

    chunks: list[Chunk] = []
    pos = -1 if prefix else 0  # byte offset in data
    for k, chunk in enumerate(enc._chunker.coarse(decoded)):  # noqa: SLF001
        s = chunk.replace(" ", ESC)
        final, steps = traced_merge(list(s), priority)
        real = [s[a:b] for a, b in merge_str(s, t2id, scores)]
        if final != real:
            raise ExplainMismatchError(f"SPM chunk {chunk!r}: traced merges {final} != encoder's {real}")
        ids, _ = enc._chunk_result(chunk, final)  # noqa: SLF001
        end = pos + len(chunk.encode())
        fallback = [Step("bytes", token=sym, ids=tuple(map(enc._byte_token, sym.encode())))  # noqa: SLF001
                    for sym in final if sym not in t2id]  # fmt: skip
        merges = [Step("merge", left=a, right=b, score=-p, at=at) for a, b, p, at in steps]
        chunks.append(Chunk(max(pos, 0), end, ids, tuple(merges + fallback), cut=0 if k else -1, text=s,
                            symbols=tuple(s), final=tuple(final)))  # fmt: skip
        pos = end
    return chunks


def _exact(enc: SpmEncoder, esc_src: bytes, n: int, prefix: bool, t2id: dict[str, int], scores: list[float]) -> Chunk:
    """One chunk for input that is not valid UTF-8: lead-byte symbols, as llama.cpp cuts them."""
    esc = esc_src.replace(b" ", ESC.encode())
    syms: list[bytes] = []
    pos = 0
    while pos < len(esc):
        size = _utf8_len(esc[pos])
        syms.append(esc[pos : pos + size])
        pos += size

    def priority(a: bytes, b: bytes) -> float | None:
        tid = t2id.get((a + b).decode("utf-8", "surrogateescape"))
        return None if tid is None else -scores[tid]

    final, steps = traced_merge(syms, priority)
    show = lambda b: b.decode("utf-8", "surrogateescape")  # noqa: E731
    ids = tuple(t for t, _, _ in encode_exact(esc_src, t2id, scores, enc._byte_token))  # noqa: SLF001
    merges = [Step("merge", left=show(a), right=show(b), score=-p, at=at) for a, b, p, at in steps]
    fallback = [Step("bytes", token=show(sym), ids=tuple(map(enc._byte_token, sym)))  # noqa: SLF001
                for sym in final if show(sym) not in t2id]  # fmt: skip
    return Chunk(0, n, ids, tuple(merges + fallback), text=show(esc), symbols=tuple(map(show, syms)),
                 final=tuple(map(show, final)), shortcut="not valid UTF-8: symbols cut by lead byte")  # fmt: skip
