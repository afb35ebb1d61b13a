"""Where code points and pieces sit in the input bytes: shared by the WPM, RWKV, PLaMo2 and BPE paths.

Token spans are byte offsets into the user's UTF-8 input, but the algorithms work on code
points (decoded leniently, as ``unicode_cpts_from_utf8`` does) or on chunks of the text. These helpers keep
the map between the two:

* ``decode_spans`` (``unicode/data.py``) / ``decode_with_offsets``: llama.cpp's lenient decode
  plus each code point's start byte; ``utf8_lens``: the UTF-8 length of code points (vectorised).
* ``expand_pieces``: the pieces of a whole text from the pieces of its chunks, encoding each
  distinct chunk once.

Does not normalise, split or tokenize; the BPE pre-tokenizer's escape and offset map live in
``pretokenize/offsets.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from itertools import count
from typing import TypeVar

import numpy as np

from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.unicode.data import decode_spans

__all__ = ["decode_spans", "decode_with_offsets", "expand_pieces", "utf8_len", "utf8_lens", "utf8_symbols"]

K = TypeVar("K", bound=Hashable)


def utf8_len(lead: int) -> int:
    """llama.cpp's ``unicode_len_utf8`` (unicode.cpp): the length a lead byte announces (1 for a
    continuation byte), no validation; the references cut symbols and code points with it."""
    return (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4)[lead >> 4]


def utf8_symbols(data: bytes) -> tuple[list[int], list[int], list[int], list[int]]:
    """llama.cpp's initial ``llm_symbol`` list of a BPE word or SPM text (llama-vocab.cpp: one
    symbol per UTF-8 character, cut by ``unicode_len_utf8`` and clipped at the end): each symbol's
    start offset (never moves), its size, prev and next index (-1 at either end).

    >>> utf8_symbols("aé".encode())
    ([0, 1], [1, 2], [-1, 0], [1, -1])
    """
    starts: list[int] = []
    offset = 0
    while offset < len(data):
        starts.append(offset)
        offset += min(utf8_len(data[offset]), len(data) - offset)
    n = len(starts)
    size = [b - a for a, b in zip(starts, starts[1:] + [len(data)])]
    return starts, size, list(range(-1, n - 1)), list(range(1, n)) + [-1]


def utf8_lens(cps: np.ndarray) -> np.ndarray:
    """UTF-8 length of each code point (1-4; no range check)."""
    return 1 + (cps >= 0x80) + (cps >= 0x800) + (cps >= 0x10000)


def decode_with_offsets(data: bytes) -> tuple[list[int], list[int]]:
    """llama.cpp's lenient UTF-8 decode (``unicode_cpts_from_utf8``) plus each code point's start byte.

    Returns ``(cps, offsets)`` with ``len(offsets) == len(cps) + 1`` and ``offsets[-1] == len(data)``.

    >>> decode_with_offsets(b"a\\xe2\\x82A\\xc3\\xa9")
    ([97, 65533, 65533, 65, 233], [0, 1, 2, 3, 4, 6])
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return decode_spans(data)
    cps = np.frombuffer(text.encode("utf-32-le"), dtype="<u4")
    offsets = np.zeros(len(cps) + 1, dtype=np.int64)
    np.cumsum(utf8_lens(cps), out=offsets[1:])
    return cps.tolist(), offsets.tolist()


def expand_pieces(chunks: list[K], starts: np.ndarray, encode: Callable[[K], tuple[Piece, ...]]) -> list[Piece]:
    """Pieces of a whole text from per-chunk pieces, encoding each *distinct* chunk once.

    ``chunks[k]`` starts at byte ``starts[k]``; ``encode`` gives a chunk's pieces with spans
    relative to the chunk. The occurrences are expanded with numpy gathers, not a Python loop
    per chunk.

    >>> expand_pieces(["ab", "c", "ab"], np.array([0, 3, 5]), lambda w: tuple((ord(ch), i, i + 1) for i, ch in enumerate(w)))
    [(97, 0, 1), (98, 1, 2), (99, 3, 4), (97, 5, 6), (98, 6, 7)]
    """
    if not chunks:
        return []
    first_seen: dict[K, int] = {}
    occ = list(map(first_seen.setdefault, chunks, count()))
    dense = np.empty(len(occ), dtype=np.int64)
    dense[list(first_seen.values())] = np.arange(len(first_seen))
    occ_idx = dense[occ]
    flat: list[Piece] = []
    firsts: list[int] = []
    for chunk in first_seen:
        firsts.append(len(flat))
        flat.extend(encode(chunk))
    if not flat:
        return []
    # annotated: numpy's stubs type this int64 diff as timedelta64
    counts: np.ndarray = np.diff(np.array([*firsts, len(flat)], dtype=np.int64))[occ_idx]
    flat_arr = np.array(flat, dtype=np.int64).reshape(-1, 3)
    total = int(counts.sum())
    gidx = np.repeat(np.array(firsts, dtype=np.int64)[occ_idx] - (np.cumsum(counts) - counts), counts) + np.arange(
        total
    )
    base = np.repeat(np.asarray(starts, dtype=np.int64), counts)
    lo = base + flat_arr[gidx, 1]
    hi = base + flat_arr[gidx, 2]
    return list(zip(flat_arr[gidx, 0].tolist(), lo.tolist(), hi.tolist()))
