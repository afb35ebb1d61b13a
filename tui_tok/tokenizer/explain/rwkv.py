"""RWKV explained: the trie's longest match from each offset, one ``match`` step per token, as
``rwkv/reference.py``'s ``on_match`` hook reports them; a byte no token starts is the unk id.
A raw fragment is one chunk."""

from __future__ import annotations

from tui_tok.tokenizer.explain.result import Chunk, Step
from tui_tok.tokenizer.rwkv.reference import ReferenceEncoder


def explain_fragment(ref: ReferenceEncoder, data: bytes) -> list[Chunk]:
    if not data:
        return []
    tokens = ref.vocab.tokens
    steps: list[Step] = []

    def on_match(tid: int, start: int, end: int) -> None:
        steps.append(Step("match", token=tokens[tid] if 0 <= tid < len(tokens) else "", id=tid, start=start, end=end))

    pieces = ref.encode_fragment(data, after_special=True, on_match=on_match)
    return [Chunk(0, len(data), tuple(t for t, _, _ in pieces), tuple(steps), text=data.decode("utf-8", "replace"))]
