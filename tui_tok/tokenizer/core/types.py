"""Plain data shared by every tokenizer module: token types, attributes, tokens with spans.

Mirrors llama.h's ``llama_token_type`` and ``llama_token_attr`` so numbers match llama.cpp.
Does not hold any algorithm: see ``core/vocab.py`` for how attributes are derived.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np


class TokenType(enum.IntEnum):
    """``tokenizer.ggml.token_type`` values as stored in GGUF (llama.h LLAMA_TOKEN_TYPE_*)."""

    UNDEFINED = 0
    NORMAL = 1
    UNKNOWN = 2
    CONTROL = 3
    USER_DEFINED = 4
    UNUSED = 5
    BYTE = 6


class TokenAttr(enum.IntFlag):
    """llama.cpp's ``llama_token_attr`` bit set, derived from the type plus overrides."""

    UNDEFINED = 0
    UNKNOWN = 1 << 0
    UNUSED = 1 << 1
    NORMAL = 1 << 2
    CONTROL = 1 << 3
    USER_DEFINED = 1 << 4
    BYTE = 1 << 5
    NORMALIZED = 1 << 6
    LSTRIP = 1 << 7
    RSTRIP = 1 << 8
    SINGLE_WORD = 1 << 9


class VocabType(enum.Enum):
    """The algorithm family, from ``tokenizer.ggml.model`` (llama.cpp's LLAMA_VOCAB_TYPE_*)."""

    NONE = "none"
    SPM = "spm"
    BPE = "bpe"
    WPM = "wpm"
    UGM = "ugm"
    RWKV = "rwkv"
    PLAMO2 = "plamo2"
    TEST = "test"


class TokenKind(enum.Enum):
    """How the UI should show a token; derived from its attributes."""

    NORMAL = "normal"
    SPECIAL = "special"  # CONTROL (BOS, EOS, <|im_start|> ...)
    BYTE = "byte"  # byte-fallback piece <0xHH>
    UNKNOWN = "unknown"
    USER_DEFINED = "user_defined"


class Token(NamedTuple):
    """One token of a tokenization, with the byte span of the input it came from.

    ``start``/``end`` are byte offsets into the UTF-8 encoding of the input. Tokens that
    consume no input (an added BOS/EOS) have ``start == end``. Spans never overlap and
    are in order; for lossless tokenizers (BPE, SPM, RWKV) they tile the input.

    A named tuple (immutable, ``Token(id=..., start=..., end=..., kind=...)``) rather than a
    dataclass so that ``Tokens`` (``core/tokens.py``, what ``Tokenizer.tokenize`` returns) can
    build them at C level as they are read: a text's tokens are kept as columns, not as these.
    """

    id: int
    """Token id, exactly as llama.cpp assigns it."""
    start: int
    """First byte of the input this token covers."""
    end: int
    """One past the last byte of the input this token covers."""
    kind: TokenKind
    """Display class: normal, special, byte fallback, unknown or user-defined."""


Token.id.__doc__ = "Token id, exactly as llama.cpp assigns it."  # type: ignore[attr-defined]
Token.start.__doc__ = "First byte of the input this token covers."  # type: ignore[attr-defined]
Token.end.__doc__ = "One past the last byte of the input this token covers."  # type: ignore[attr-defined]
Token.kind.__doc__ = "Display class: normal, special, byte fallback, unknown or user-defined."  # type: ignore[attr-defined]


Piece = tuple[int, int, int]
"""A token placed on the input: (token id, start, end), byte offsets relative to the fragment (what a
fragment encoder returns). Its *piece* is the token's text (``token_to_piece``; README, Glossary)."""
PieceArrays = tuple["np.ndarray", "np.ndarray", "np.ndarray"]
"""Pieces as columns: int64 ids, byte starts, byte ends (``Tokenizer.tokenize_arrays``)."""


def piece_arrays(pieces: list[Piece]) -> PieceArrays:
    """``pieces`` as ``PieceArrays``."""
    import numpy as np

    table = np.array(pieces, dtype=np.int64).reshape(-1, 3)
    return table[:, 0].copy(), table[:, 1].copy(), table[:, 2].copy()
