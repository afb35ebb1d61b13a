"""PLaMo2 explained: ``plamo2/reference.py``'s best path as its ``on_step`` hook reports it, one
``piece`` step per token with its integer score (llama.cpp's ``round(score * 1e4)``) and one
``bytes`` step per code point no token covers (its byte tokens). TEST vocabularies: one
``hash`` step per 5-byte chunk, from ``test/reference.py``'s ``on_chunk``. A raw fragment is one
chunk."""

from __future__ import annotations

from tui_tok.tokenizer.explain.result import Chunk, Step
from tui_tok.tokenizer.plamo2.reference import ReferenceEncoder
from tui_tok.tokenizer.test.reference import ReferenceEncoder as TestReference


def explain_fragment(ref: ReferenceEncoder, data: bytes) -> list[Chunk]:
    tokens = ref.vocab.tokens
    steps: list[Step] = []

    def on_step(tid: int, ids: tuple[int, ...], start: int, end: int, score: int) -> None:
        if tid < 0:
            steps.append(Step("bytes", ids=ids, start=start, end=end))
        else:
            steps.append(Step("piece", token=tokens[tid], id=tid, start=start, end=end, score=float(score)))

    pieces = ref.encode_fragment(data, after_special=True, on_step=on_step)
    return _one_chunk(data, pieces, steps)


def explain_test(ref: TestReference, data: bytes) -> list[Chunk]:
    steps: list[Step] = []
    pieces = ref.encode_fragment(
        data,
        after_special=True,
        on_chunk=lambda tid, start, end, _: steps.append(Step("hash", id=tid, start=start, end=end)),
    )
    return _one_chunk(data, pieces, steps)


def _one_chunk(data: bytes, pieces: list[tuple[int, int, int]], steps: list[Step]) -> list[Chunk]:
    text = data.decode("utf-8", "replace")
    return [Chunk(0, len(data), tuple(t for t, _, _ in pieces), tuple(steps), text=text)] if data else []
