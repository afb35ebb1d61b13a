r"""RWKV stated once, as llama.cpp runs it: the reference every fast RWKV path is tested equal to.

``llm_tokenizer_rwkv`` (llama-vocab.cpp:1312-1326) puts every token, unescaped
(``llama_unescape_rwkv_token``, V:1258-1310: ``rwkv/unescape.py``), into one byte trie (a later id
with the same bytes wins); ``llm_tokenizer_rwkv_session::tokenize`` (V:1331-1360) then walks it:
from the current byte, follow the trie as far as the text allows, remembering the last node that
is a token; emit that token and go on after it. A byte that starts no path emits the unknown id
(-1 = NULL unless the file sets one) and is skipped.

A byte that starts a path on which no token ends (impossible with a vocab holding all 256 single
bytes) leaves llama.cpp's remembered length at 0: it emits id 0 and restarts *from offset 0*,
forever. Here that is ``TokenizeError``.

The trie is written as a dict of token bytes plus the set of their prefixes: "the node exists"
is "the bytes so far are a prefix of some token".

Hook (for ``explain``): ``on_match(token_id, start, end)`` per token emitted (the unknown id included).

>>> from tui_tok.tokenizer.core.vocab import vocab_from_metadata
>>> v = vocab_from_metadata({"tokenizer.ggml.model": "rwkv", "tokenizer.ggml.tokens": ["<s>", "a", "ab", "abc", r"\n"]})
>>> ReferenceEncoder(v).encode_fragment(b"abab\nx", after_special=True)
[(2, 0, 2), (2, 2, 4), (4, 4, 5), (-1, 5, 6)]
"""

from __future__ import annotations

from collections.abc import Callable

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.rwkv.unescape import unescape_token

OnMatch = Callable[[int, int, int], None]
"""``on_match(token_id, start, end)``: one token emitted for ``text[start:end]``."""


class ReferenceEncoder:
    """llama.cpp's RWKV for one vocab, plainly (a ``FragmentEncoder``; slow: Python per byte)."""

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self._tokens: dict[bytes, int] | None = None
        self._nodes: frozenset[bytes] = frozenset()

    def _trie(self) -> dict[bytes, int]:
        if self._tokens is None:
            tokens = {unescape_token(text): tid for tid, text in enumerate(self.vocab.tokens)}
            self._nodes = frozenset(raw[:k] for raw in tokens for k in range(1, len(raw) + 1))
            self._tokens = tokens
        return self._tokens

    def encode_fragment(self, text: bytes, *, after_special: bool, on_match: OnMatch | None = None) -> list[Piece]:
        """Pieces of one raw fragment, spans in its bytes (RWKV has no after-special rule)."""
        del after_special
        tokens = self._trie()
        nodes = self._nodes
        out: list[Piece] = []
        position = 0
        while position < len(text):
            start = position
            if text[position : position + 1] not in nodes:  # no matching token: the unknown id
                out.append((self.vocab.unk_id, position, position + 1))
                if on_match is not None:
                    on_match(self.vocab.unk_id, position, position + 1)
                position += 1
                continue
            token_id, token_length = 0, 0
            while text[start : position + 1] in nodes:  # the longest token on the path
                hit = tokens.get(text[start : position + 1])
                if hit is not None:
                    token_id, token_length = hit, position + 1
                if position + 1 >= len(text):
                    break
                position += 1
            if token_length == 0:
                raise TokenizeError(
                    f"byte offset {start}: byte 0x{text[start]:02X} starts a token but no token matches here; "
                    "llama.cpp's RWKV tokenizer would restart from offset 0 and never finish"
                )
            out.append((token_id, start, token_length))
            if on_match is not None:
                on_match(token_id, start, token_length)
            position = token_length
        return out
