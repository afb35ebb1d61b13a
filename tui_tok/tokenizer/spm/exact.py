"""SPM on bytes that are not valid UTF-8, exactly as llama.cpp cuts them (llama-vocab.cpp:115-239).

llama.cpp cuts symbols by the lead byte's length (``unicode_len_utf8``) without validating, so
a bad lead byte may swallow the bytes after it, a space included: no chunking is exact here, and
the whole fragment merges at once with llama.cpp's heap (``spm_merge.merge``). Spans come from a
per-byte map of the space-escaped text (a ▁ made from a space covers that 1 input byte).
"""

from __future__ import annotations

from collections.abc import Callable

from tui_tok.tokenizer.spm.merge import merge
from tui_tok.tokenizer.core.types import Piece

_ESC_BYTES = "\u2581".encode()


def encode_exact(
    data: bytes, t2id: dict[str, int], scores: list[float], byte_token: Callable[[int], int]
) -> list[Piece]:
    """Pieces of any bytes: symbols by lead byte on the escaped bytes, spans via a per-byte map;
    ``byte_token(b)`` is the byte-fallback token of byte b."""
    esc = data.replace(b" ", _ESC_BYTES)
    span_of: list[tuple[int, int]] = []
    for i, byte in enumerate(data):
        if byte == 0x20:
            span_of += [(i, i + 1), (i + 1, i + 1), (i + 1, i + 1)]
        else:
            span_of.append((i, i + 1))
    bounds = []
    pos = 0
    n = len(esc)
    while pos < n:
        bounds.append(pos)
        pos += _utf8_len(esc[pos])

    def key(a: int, b: int) -> str:
        return esc[a:b].decode("utf-8", "surrogateescape")

    out: list[Piece] = []
    for a, b in merge(bounds, n, key, t2id, scores):
        b = min(b, n)
        tid = t2id.get(key(a, b))
        if tid is not None:
            out.append((tid, span_of[a][0], span_of[b - 1][1]))
            continue
        for i in range(a, b):
            out.append((byte_token(esc[i]), *span_of[i]))
    return out


def _utf8_len(lead: int) -> int:
    """llama.cpp's ``unicode_len_utf8``: length from the lead byte's high nibble."""
    return (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4)[lead >> 4]
