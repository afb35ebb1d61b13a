"""Incremental decoding: push ids one at a time, get text only for complete UTF-8 characters.

Token pieces can end in the middle of a character (byte-fallback tokens, byte-level BPE pieces
of CJK or emoji). ``StreamDecoder`` keeps those bytes back (``pending``) until the character is
complete, and emits U+FFFD as soon as a byte can no longer start or continue a valid character,
so invalid input never blocks. Decoding uses Python's incremental UTF-8 decoder with
``errors="replace"``, which yields exactly what a one-shot ``bytes.decode("utf-8", "replace")``
of the whole stream yields.

Choices (documented because llama.cpp has no streaming detokenizer of its own):

- Pieces come from ``token_to_piece`` with ``special=True`` by default (like
  ``common_token_to_piece`` in llama.cpp's examples), so control tokens show as their text.
- Like ``detokenize`` with ``remove_special=False``, the first token pushed after creation or
  ``reset()`` loses one leading space when the vocab has ``add_space_prefix`` (SPM's "▁Hello"
  at the start of a text decodes to "Hello").
- The ``clean_spaces`` passes of ``detokenize`` are not applied; on vocabs that use them the
  stream can differ from ``decode`` around " ?", " ' " and " 's".

So the concatenated output equals ``decode(ids, unparse_special=special)`` whenever the vocab has
``clean_spaces`` off (SPM, UGM, RWKV, many BPE pre-tokenizers) or the text has none of those spots.

>>> from tui_tok.tokenizer.tokenizer import Tokenizer
>>> tok = Tokenizer.from_metadata({"tokenizer.ggml.model": "llama",
...     "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "<0xE2>", "<0x82>", "<0xAC>"],
...     "tokenizer.ggml.token_type": [2, 3, 3, 6, 6, 6]})
>>> d = tok.stream_decoder()
>>> d.push(3), d.push(4), d.pending, d.push(5)
('', '', b'\\xe2\\x82', '€')
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui_tok.tokenizer.core.decode import PieceTable


class StreamDecoder:
    """Stateful id -> text decoder for one tokenizer; see the module docstring for its rules."""

    def __init__(self, pieces: PieceTable, *, special: bool = True) -> None:
        self._pieces = pieces
        self._special = special
        self._strip_space = pieces.vocab.add_space_prefix
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._first = True

    @property
    def pending(self) -> bytes:
        """Bytes received but not yet emitted (an incomplete UTF-8 character)."""
        return self._decoder.getstate()[0]

    def push(self, token_id: int) -> str:
        """Add one token; return the text that is now complete (possibly "")."""
        lstrip = 1 if self._first and self._strip_space else 0
        self._first = False
        piece = self._pieces.token_to_piece(token_id, special=self._special, lstrip=lstrip)
        return self._decoder.decode(piece)

    def push_many(self, ids: list[int]) -> str:
        return "".join(self.push(t) for t in ids)

    def flush(self) -> str:
        """End of stream: an incomplete tail becomes U+FFFD. The decoder is then empty."""
        return self._decoder.decode(b"", final=True)

    def reset(self) -> None:
        """Drop pending bytes and start over (the next token is again the first)."""
        self._decoder.reset()
        self._first = True
