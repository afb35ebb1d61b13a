"""How a token piece or a text is shown: visible whitespace, escaped control and raw bytes.

Every mapping here is one character in, one character out (except the byte escapes of
``display_piece``), so a position in the shown text is a position in the original text.
Does not decide colours: see ``layout.py``.

>>> visible_text("a b\\tc\\n")
'a·b→c↵'
>>> display_piece("\\udce6 x\\n")
'\\\\xE6·x↵'
>>> hex_bytes(b"\\xe6\\x97")
'e6 97'
"""

from __future__ import annotations

import re

SPACE_MARK = "·"
TAB_MARK = "→"
NEWLINE_MARK = "↵"
CR_MARK = "␍"


def _visible_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for cp in range(0x20):
        table[cp] = chr(0x2400 + cp)  # control pictures: ␀ ␁ ...
    table[0x7F] = "␡"
    table[ord(" ")] = SPACE_MARK
    table[ord("\t")] = TAB_MARK
    table[ord("\n")] = NEWLINE_MARK
    table[ord("\r")] = CR_MARK
    table[0xA0] = "⍽"  # no-break space
    table[0x3000] = "□"  # ideographic space
    return table


def _plain_table() -> dict[int, str]:
    # whitespace hidden: keep one cell per character so the layout does not move
    table = {cp: chr(0x2400 + cp) for cp in range(0x20)}
    table[ord("\t")] = " "
    table[ord("\n")] = " "
    table[ord("\r")] = " "
    table[0x7F] = "␡"
    return table


VISIBLE_TABLE: dict[int, str] = _visible_table()
"""``str.translate`` table making whitespace and C0 controls visible, one char each."""

PLAIN_TABLE: dict[int, str] = _plain_table()
"""Like ``VISIBLE_TABLE`` but whitespace stays blank (controls still shown)."""

PIECE_TABLE: dict[int, str] = {
    **VISIBLE_TABLE,
    **{cp: f"\\x{cp - 0xDC00:02X}" for cp in range(0xDC80, 0xDD00)},  # surrogateescape bytes
}
"""For vocabulary pieces: also shows bytes that were not valid UTF-8 as ``\\xNN``."""


def visible_text(text: str, *, show_whitespace: bool = True) -> str:
    """``text`` with one printable character per input character."""
    return text.translate(VISIBLE_TABLE if show_whitespace else PLAIN_TABLE)


_PIECE_CHARS = re.compile("[" + "".join(map(re.escape, map(chr, sorted(PIECE_TABLE)))) + "]")
_LONG = 4096
"""From this length ``display_piece`` finds the few characters to change with a regex: a
``translate`` with a dict looks every character up (~35 ns each: ~90 ms for the 1.7M
characters of gemma-4's joined vocabulary, against ~10 ms)."""


def display_piece(piece: str) -> str:
    """A vocabulary piece as one line: whitespace visible, invalid bytes as ``\\xNN``.

    The raw piece is kept otherwise (``Ġthe`` and ``▁the`` stay as the vocabulary stores them).
    """
    if len(piece) < _LONG:
        return piece.translate(PIECE_TABLE)
    return _PIECE_CHARS.sub(lambda m: PIECE_TABLE[ord(m.group())], piece)


NULL_PIECE = "\u2205"
"""What stands for a piece where a token has llama.cpp's null id (-1), which has none: WPM and
RWKV emit it for text no token covers when the vocab has no unknown token."""


def display_bytes(data: bytes) -> str:
    """Bytes as text, with incomplete UTF-8 shown as ``\\xNN`` and whitespace visible."""
    return display_piece(data.decode("utf-8", "surrogateescape"))


def hex_bytes(data: bytes) -> str:
    """Space-separated lowercase hex: ``e6 97 a5``."""
    return data.hex(" ")
