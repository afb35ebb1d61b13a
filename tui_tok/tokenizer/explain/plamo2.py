"""PLaMo2 explained: the encoder's own best-cost path (``Plamo2Encoder.encode_fragment``), one
``piece`` step per token with its integer score (llama.cpp's ``round(score * 1e4)``), and a
``bytes`` step for each run of byte tokens of a code point no token covers. A raw fragment is
one chunk. TEST vocabularies: one ``hash`` step per 5-byte piece."""

from __future__ import annotations

from typing import Any

from tui_tok.tokenizer.core.types import TokenAttr
from tui_tok.tokenizer.explain.result import Chunk, Step
from tui_tok.tokenizer.plamo2.reference import int_score


def explain_fragment(enc: Any, data: bytes) -> list[Chunk]:
    if not data:
        return []
    vocab = enc.vocab
    pieces = enc.encode_fragment(data, after_special=True)
    steps: list[Step] = []
    for t, a, b in pieces:
        if int(vocab.attrs[t]) & TokenAttr.BYTE:
            if steps and steps[-1].kind == "bytes" and a <= steps[-1].end:
                last = steps[-1]
                steps[-1] = Step("bytes", ids=last.ids + (t,), start=last.start, end=max(b, last.end))
            else:
                steps.append(Step("bytes", ids=(t,), start=a, end=b))
        else:
            steps.append(
                Step(
                    "piece", token=vocab.tokens[t], id=t, start=a, end=b, score=float(int_score(float(vocab.scores[t])))
                )
            )
    return [Chunk(0, len(data), tuple(t for t, _, _ in pieces), tuple(steps), text=data.decode("utf-8", "replace"))]


def explain_test(enc: Any, data: bytes) -> list[Chunk]:
    pieces = enc.encode_fragment(data, after_special=True) if data else []
    steps = tuple(Step("hash", id=t, start=a, end=b) for t, a, b in pieces)
    return (
        [Chunk(0, len(data), tuple(t for t, _, _ in pieces), steps, text=data.decode("utf-8", "replace"))]
        if data
        else []
    )
