"""The tokenizer engine: plain data in (a vocab built from metadata), llama.cpp-exact ids out.

>>> from tui_tok.tokenizer import Tokenizer, vocab_from_metadata   # doctest: +SKIP
>>> tok = Tokenizer.from_metadata(gguf.metadata)                     # doctest: +SKIP

Never imports the GGUF reader or the UI. Exports are lazy so importing a submodule
(``types``, ``vocab``) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["Tokenizer", "StreamDecoder", "Vocab", "vocab_from_metadata", "Token", "Tokens", "TokenKind", "TokenAttr",
           "TokenType", "VocabType"]  # fmt: skip

if TYPE_CHECKING:
    from tui_tok.tokenizer.core.stream import StreamDecoder
    from tui_tok.tokenizer.core.tokens import Tokens
    from tui_tok.tokenizer.core.types import Token, TokenAttr, TokenKind, TokenType, VocabType
    from tui_tok.tokenizer.core.vocab import Vocab, vocab_from_metadata
    from tui_tok.tokenizer.tokenizer import Tokenizer

_WHERE = {
    "Tokenizer": "tui_tok.tokenizer.tokenizer",
    "StreamDecoder": "tui_tok.tokenizer.core.stream",
    "Vocab": "tui_tok.tokenizer.core.vocab",
    "vocab_from_metadata": "tui_tok.tokenizer.core.vocab",
    "Token": "tui_tok.tokenizer.core.types",
    "Tokens": "tui_tok.tokenizer.core.tokens",
    "TokenKind": "tui_tok.tokenizer.core.types",
    "TokenAttr": "tui_tok.tokenizer.core.types",
    "TokenType": "tui_tok.tokenizer.core.types",
    "VocabType": "tui_tok.tokenizer.core.types",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'tui_tok.tokenizer' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
