"""Decoding a fragment as llama.cpp does, keeping where every code point came from.

llama.cpp decodes leniently (``unicode_cpts_from_utf8``, unicode.cpp:1130: each bad byte becomes U+FFFD), may escape
' ' as U+2581 first (gemma4, sarvam-moe), and later re-encodes words to UTF-8; byte lengths
change on the way. These helpers give the code points as a ``str`` plus a map from byte offsets
of the re-encoding back to offsets in the input, so token spans point at the user's bytes.

The lenient decode itself (``decode_spans``) and ``utf8_lens`` live in ``tui_tok/tokenizer/core/spans.py``
(shared with WPM, RWKV and PLaMo2); they stay importable from here for ``bpe/encoder.py``.

Does not split or tokenize: see ``split.py`` and ``bpe/encoder.py``.
"""

from __future__ import annotations

import numpy as np

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.core.spans import decode_spans, utf8_lens


def check_range(cps: list[int]) -> None:
    """llama.cpp throws when it re-encodes a code point above U+10FFFF (from F4 90 80 80 ...)."""
    if cps and max(cps) > 0x10FFFF:
        bad = next(cp for cp in cps if cp > 0x10FFFF)
        raise TokenizeError(f"invalid code point 0x{bad:X} in input (llama.cpp: 'invalid codepoint')")


def decode(data: bytes, *, escape: bool, offsets: bool = True) -> tuple[str, np.ndarray | None]:
    """llama.cpp's code points of ``data`` (after the optional ' ' -> U+2581 escape) as a ``str``,
    and a map from byte offsets of their re-encoding to offsets in ``data`` (None when equal).

    Escaping at code point level equals llama.cpp's byte-level replace: E2 96 81 is a valid
    sequence and E2 never continues a truncated one, so the decode sees the same characters.
    ``offsets=False`` skips the map (always None) for callers that only want ids.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        cps, src = decode_spans(data)
        check_range(cps)
        if escape:
            cps = [0x2581 if cp == 0x20 else cp for cp in cps]
        text = "".join(map(chr, cps))
        if not offsets:
            return text, None
        arr = np.array(cps, dtype=np.int64)
        src_arr = np.array(src, dtype=np.int64)
        return text, offset_map(src_arr[:-1], np.diff(src_arr), utf8_lens(arr), len(data))
    if not escape or " " not in text:
        return text, None
    escaped = text.replace(" ", "\u2581")
    if not offsets:
        return escaped, None
    arr = np.frombuffer(escaped.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    src_lens = utf8_lens(np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64))
    starts = np.concatenate(([0], np.cumsum(src_lens)[:-1]))
    return escaped, offset_map(starts, src_lens, utf8_lens(arr), len(data))


def offset_map(src_starts: np.ndarray, src_lens: np.ndarray, enc_lens: np.ndarray, src_total: int) -> np.ndarray:
    """enc byte offset -> source byte offset: byte k of a character maps to start + min(k, source length)."""
    total = int(enc_lens.sum())
    if total == 0:
        return np.array([src_total], dtype=np.int64)
    enc_starts = np.concatenate(([0], np.cumsum(enc_lens)[:-1]))
    k = np.arange(total) - np.repeat(enc_starts, enc_lens)
    mapped = np.repeat(src_starts, enc_lens) + np.minimum(k, np.repeat(src_lens, enc_lens))
    return np.concatenate((mapped, [src_total])).astype(np.int64)
