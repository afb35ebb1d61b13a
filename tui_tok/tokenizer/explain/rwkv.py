"""RWKV explained: the trie's longest match from each offset (``RwkvEncoder._walk``, the
encoder's own loop), one ``match`` step per token; a byte no token starts is the unk id.
A raw fragment is one chunk."""

from __future__ import annotations

from tui_tok.tokenizer.explain.result import Chunk, Step
from tui_tok.tokenizer.rwkv.encoder import RwkvEncoder


def explain_fragment(enc: RwkvEncoder, data: bytes) -> list[Chunk]:
    if not data:
        return []
    tokens = enc.vocab.tokens
    pieces = enc._walk(data)  # noqa: SLF001 - llama.cpp's loop itself
    steps = tuple(Step("match", token=tokens[t] if 0 <= t < len(tokens) else "", id=t, start=a, end=b) for t, a, b in pieces)
    return [Chunk(0, len(data), tuple(t for t, _, _ in pieces), steps, text=data.decode("utf-8", "replace"))]
