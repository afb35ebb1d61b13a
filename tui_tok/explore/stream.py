"""Replay of streaming decode: what a chat UI shows after each token, and what it holds back.

A token may end in the middle of a UTF-8 character (a byte-fallback ``<0xF0>`` piece, or a
BPE piece holding half of a CJK character); a streaming decoder keeps those bytes until the
character is complete. ``replay`` runs the tokenizer's own ``StreamDecoder`` over the ids
once and records every step, so the UI can step forwards and backwards freely. Does not
decode by itself: the decoder and ``piece_of`` come from the tokenizer.

>>> class Dec:  # a stand-in decoder: holds bytes until they decode
...     pending = b""
...     def push(self, i):
...         self.pending += {1: b"a", 2: b"\\xe6", 3: b"\\x97\\xa5"}[i]
...         try:
...             out, self.pending = self.pending.decode(), b""
...         except UnicodeDecodeError:
...             out = ""
...         return out
...     def flush(self):
...         out, self.pending = self.pending.decode("utf-8", "replace"), b""
...         return out
>>> t = replay([1, 2, 3], Dec(), piece_of=lambda i: b"")
>>> [t.text_after(i) for i in range(3)], t.pending[1]
(['a', 'a', 'a日'], b'\\xe6')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np


class Decoder(Protocol):
    """What ``replay`` needs of ``Tokenizer.stream_decoder()``."""

    @property
    def pending(self) -> bytes:
        """Bytes held back (only read: ``StreamDecoder``'s is a property)."""
        ...

    def push(self, token_id: int) -> str: ...

    def flush(self) -> str: ...


@dataclass(frozen=True, slots=True, eq=False)
class StreamTrace:
    """Every step of a streaming decode; step ``i`` is the state after pushing ``ids[i]``."""

    ids: tuple[int, ...]
    pieces: tuple[bytes, ...]
    """``token_to_piece`` of each id."""
    emitted: tuple[str, ...]
    """Text the decoder released at each step (often '' while bytes are held back)."""
    pending: tuple[bytes, ...]
    """Bytes held back after each step."""
    text: str
    """Everything emitted, concatenated (without the final flush)."""
    text_ends: np.ndarray
    """int64 length of ``text`` after each step."""
    flushed: str
    """What ``flush()`` released after the last id (U+FFFD for an incomplete tail)."""

    def __len__(self) -> int:
        return len(self.ids)

    def text_after(self, step: int) -> str:
        """Text shown after step ``step`` (-1: before any token)."""
        return self.text[: int(self.text_ends[step])] if step >= 0 else ""


def replay(ids: Sequence[int], decoder: Decoder, *, piece_of: Callable[[int], bytes]) -> StreamTrace:
    """Push ``ids`` one by one through ``decoder`` and record what it shows and holds. The null
    id -1 (llama.cpp's, for text no token covers in a vocab with no unknown token) has no piece:
    it is not pushed, and shows nothing."""
    emitted: list[str] = []
    pending: list[bytes] = []
    ends: list[int] = []
    total = 0
    for token_id in ids:
        out = decoder.push(int(token_id)) if token_id >= 0 else ""  # the null id -1: no piece
        emitted.append(out)
        pending.append(bytes(decoder.pending))
        total += len(out)
        ends.append(total)
    text = "".join(emitted)
    flushed = decoder.flush()
    return StreamTrace(
        ids=tuple(int(i) for i in ids),
        pieces=tuple(piece_of(int(i)) if i >= 0 else b"" for i in ids),
        emitted=tuple(emitted),
        pending=tuple(pending),
        text=text,
        text_ends=np.asarray(ends, dtype=np.int64),
        flushed=flushed,
    )


def utf8_expected_length(lead: int) -> int:
    """Bytes of the UTF-8 sequence that ``lead`` starts (1 for an invalid lead).

    >>> utf8_expected_length(0xE6), utf8_expected_length(0xF0), utf8_expected_length(0x41)
    (3, 4, 1)
    """
    if lead >= 0xF0:
        return 4
    if lead >= 0xE0:
        return 3
    if lead >= 0xC0:
        return 2
    return 1


def describe_pending(pending: bytes) -> str:
    """Why bytes are held back, in words.

    >>> describe_pending(b"\\xf0\\x9f")
    'holding f0 9f: 2 of 4 bytes of a UTF-8 character'
    >>> describe_pending(b"")
    'nothing held back'
    """
    if not pending:
        return "nothing held back"
    # the incomplete character is the last lead byte and what follows it
    start = len(pending) - 1
    while start > 0 and (pending[start] & 0xC0) == 0x80:
        start -= 1
    need = utf8_expected_length(pending[start])
    have = len(pending) - start
    return f"holding {pending.hex(' ')}: {have} of {need} bytes of a UTF-8 character"
