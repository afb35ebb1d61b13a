"""GPT-2's reversible byte <-> printable-character map (llama.cpp unicode.cpp:148-212).

Byte-level BPE vocabularies store every byte as a printable code point (space is ``Ġ``,
newline ``Ċ``); encoding maps input bytes through ``BYTE_TO_CHAR`` and decoding maps back.

>>> BYTE_TO_CHAR[0x20], CHAR_TO_BYTE["Ġ"]
('Ġ', 32)
"""

from __future__ import annotations


def _bytes_to_unicode() -> list[str]:
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table = [""] * 256
    for b in keep:
        table[b] = chr(b)
    n = 0
    for b in range(256):
        if not table[b]:
            table[b] = chr(256 + n)
            n += 1
    return table


BYTE_TO_CHAR: list[str] = _bytes_to_unicode()
"""Byte value -> the one-character string that stands for it."""

CHAR_TO_BYTE: dict[str, int] = {c: b for b, c in enumerate(BYTE_TO_CHAR)}
"""Inverse of ``BYTE_TO_CHAR``."""


ENCODE_TABLE: dict[int, str] = {b: c for b, c in enumerate(BYTE_TO_CHAR)}
"""For ``bytes.decode('latin-1').translate(ENCODE_TABLE)``: byte-level encode in one C call."""


def byte_encode(data: bytes) -> str:
    """Map raw bytes to their byte-level characters.

    >>> byte_encode(" hi\\n".encode())
    'ĠhiĊ'
    """
    return data.decode("latin-1").translate(ENCODE_TABLE)
