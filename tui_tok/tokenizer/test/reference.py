"""TEST stated once, as llama.cpp runs it: the reference, and the encoder too (it has no fast path).

``LLAMA_VOCAB_TYPE_TEST`` (llama.h: "Dummy tokenizer for testing: rolling hash of fixed-size
chunks -> tokens, tokens -> hex"; ``tokenizer.ggml.model`` "test") has no tokenizer object:
``llama_vocab::impl::tokenize`` (llama-vocab.cpp:3617-3650) cuts each raw fragment into 5-byte
chunks (the last one shorter), hashes each as ``hash = hash * 31 + byte`` in a ``uint64_t`` and
emits ``hash % n_vocab``. No BOS/EOS is added. With no token, llama.cpp's ``% 0`` is undefined:
here ``TokenizeError``.

Hook (for ``explain``): ``on_chunk(token_id, start, end, hash)`` per chunk.

>>> from tui_tok.tokenizer.core.vocab import vocab_from_metadata
>>> v = vocab_from_metadata({"tokenizer.ggml.model": "test", "tokenizer.ggml.tokens": ["a", "b", "c"]})
>>> ReferenceEncoder(v).encode_fragment(b"hello!", after_special=True)
[(1, 0, 5), (0, 5, 6)]
"""

from __future__ import annotations

from collections.abc import Callable

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.core.encoder import Encoder
from tui_tok.tokenizer.core.paths import Paths
from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.core.vocab import Vocab

CHUNK = 5
OnChunk = Callable[[int, int, int, int], None]
"""``on_chunk(token_id, start, end, hash)``: one chunk ``text[start:end]`` and its hash."""


class ReferenceEncoder(Encoder):
    """llama.cpp's TEST encode for one vocab (``Tokenizer``'s encoder in every ``paths`` mode)."""

    def __init__(self, vocab: Vocab, *, paths: Paths | None = None) -> None:
        del paths  # no path to choose
        self.vocab = vocab

    def encode_fragment(self, text: bytes, *, after_special: bool, on_chunk: OnChunk | None = None) -> list[Piece]:
        """Pieces of one raw fragment, spans in its bytes (``after_special`` does not matter)."""
        del after_special
        n_vocab = self.vocab.n_tokens
        if not n_vocab and text:
            raise TokenizeError("TEST vocab has no tokens (llama.cpp would take the hash modulo 0)")
        out: list[Piece] = []
        for pos in range(0, len(text), CHUNK):
            h = 0
            for byte in text[pos : pos + CHUNK]:
                h = (h * 31 + byte) & 0xFFFFFFFFFFFFFFFF
            end = min(pos + CHUNK, len(text))
            out.append((h % n_vocab, pos, end))
            if on_chunk is not None:
                on_chunk(h % n_vocab, pos, end, h)
        return out
