"""How a token piece or a text is shown: visible whitespace, escaped control and raw bytes.

Whitespace and C0 controls map one character to one character. Characters that take no
cell or break lines without being a newline (format characters such as U+200B, U+200D, soft
hyphen, BOM, LRM; C1 controls; U+2028/2029; lone surrogates, which stand for bytes that are not
UTF-8) are drawn as a code in angle brackets (``⟨200B⟩``) or ``\\xNN`` in the token view
(``shown_text``; ``invisible_width`` says how many cells that takes), and as one stand-in
character in the editor (``editor_text``, which must keep columns). Does not decide colours:
see ``layout.py``.

>>> visible_text("a b\\tc\\n")
'a·b→c↵'
>>> display_piece("\\udce6 x\\n")
'\\\\xE6·x↵'
>>> shown_text("a\\u200db\\udc85")
'a⟨200D⟩b\\\\x85'
>>> editor_text("a\\u200db\\r")
'a◌b␍'
>>> hex_bytes(b"\\xe6\\x97")
'e6 97'

The marks are one vocabulary for every view (``MARKS``): a view that shows a piece, a chunk
or a stretch of text as tokens uses ``shown_text`` (or ``marked`` for bytes); a view that shows
text as text (the editor, the stream's emitted text) expands a tab to ``TAB_COLUMNS``.
"""

from __future__ import annotations

import re
from functools import lru_cache

import regex

SPACE_MARK = "·"
TAB_MARK = "→"
NEWLINE_MARK = "↵"
CR_MARK = "␍"
MARKS: dict[str, str] = {" ": SPACE_MARK, "\t": TAB_MARK, "\n": NEWLINE_MARK, "\r": CR_MARK}
"""The whitespace marks every view draws (tokens, pieces, ids' pieces, explain's chunks and merges)."""
TAB_COLUMNS = 4
"""Columns a tab takes where text is drawn as text: the editors and the stream's emitted text."""


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
    **{cp: f"⟨{cp:04X}⟩" for cp in range(0x80, 0xA0)},  # C1 controls (0x9B is CSI to a terminal)
    **{cp: f"\\x{cp - 0xDC00:02X}" for cp in range(0xDC80, 0xDD00)},  # surrogateescape bytes
}
"""For vocabulary pieces: also shows C1 controls as ``⟨0085⟩`` and bytes that were not valid
UTF-8 as ``\\xNN``."""


def visible_text(text: str, *, show_whitespace: bool = True) -> str:
    """``text`` with one printable character per input character."""
    return text.translate(VISIBLE_TABLE if show_whitespace else PLAIN_TABLE)


_PIECE_CHARS = re.compile("[" + "".join(map(re.escape, map(chr, sorted(PIECE_TABLE)))) + "]")
_LONG = 4096
"""From this length ``display_piece`` finds the few characters to change with a regex: a
``translate`` with a dict looks every character up (several times slower on gemma-4's joined
vocabulary)."""


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


INVISIBLE = regex.compile(r"[\p{Cf}\p{Zl}\p{Zp}\p{Cs}\x80-\x9f]")
"""Characters a terminal draws as nothing (or as a line break): shown by a code instead."""


@lru_cache(maxsize=4096)
def invisible_form(ch: str) -> str:
    """How the token view draws one ``INVISIBLE`` character.

    >>> invisible_form("\\u200b"), invisible_form("\\udc85"), invisible_form("\\x85")
    ('⟨200B⟩', '\\\\x85', '⟨0085⟩')
    """
    cp = ord(ch)
    if 0xDC80 <= cp <= 0xDCFF:
        return f"\\x{cp - 0xDC00:02X}"  # a byte that is not UTF-8 (surrogateescape)
    return f"⟨{cp:04X}⟩"


def invisible_width(ch: str) -> int:
    """Cells ``invisible_form(ch)`` takes (every character of it is one cell)."""
    return len(invisible_form(ch))


def shown_text(text: str, *, show_whitespace: bool = True) -> str:
    """``visible_text`` with every ``INVISIBLE`` character replaced by its ``invisible_form``.

    Drawn in the token view: a token that is only U+200B shows as ``⟨200B⟩``. The layout
    counts the same cells (``layout.layout_arrays``), so rows still wrap right.
    """
    out = visible_text(text, show_whitespace=show_whitespace)
    if text.isascii() or INVISIBLE.search(out) is None:
        return out
    return INVISIBLE.sub(lambda m: invisible_form(m.group()), out)


def marked(data: str | bytes) -> str:
    """``shown_text`` of a piece, a chunk or raw bytes (bytes that are not UTF-8 as ``\\xNN``).

    >>> marked(b"a\\tb\\n\\xe6")
    'a→b↵\\\\xE6'
    """
    if isinstance(data, bytes):
        data = data.decode("utf-8", "surrogateescape")
    return shown_text(data)


EDITOR_BREAK = "␤"
"""Stands in the editor for a line break that is not ``\\n`` (U+0085, U+2028, U+2029)."""
EDITOR_INVISIBLE = "◌"
"""Stands in the editor for a format character or C1 control (it takes no cell otherwise)."""
EDITOR_BAD_BYTE = "\ufffd"
"""Stands in the editor for a byte that is not UTF-8."""

_EDITOR_TABLE: dict[int, str] = {cp: chr(0x2400 + cp) for cp in range(0x20) if cp not in (0x09, 0x0A)}
_EDITOR_TABLE[0x7F] = "␡"


def _editor_form(match: regex.Match[str]) -> str:
    cp = ord(match.group())
    if cp in (0x85, 0x2028, 0x2029):
        return EDITOR_BREAK
    if 0xD800 <= cp <= 0xDFFF:
        return EDITOR_BAD_BYTE
    return EDITOR_INVISIBLE


_EDITOR_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def editor_text(line: str) -> str:
    """One line of the editor as drawn: one character, one cell, for each character of ``line``.

    Controls (a terminal would act on them: CR, ESC ...) become control pictures, characters
    that take no cell or break lines become ``EDITOR_INVISIBLE`` / ``EDITOR_BREAK``, bytes
    that are not UTF-8 ``EDITOR_BAD_BYTE``. Tabs stay (the editor expands them).
    """
    if line.isascii():
        if line.isprintable() or _EDITOR_CONTROLS.search(line) is None:
            return line
        return line.translate(_EDITOR_TABLE)
    if _EDITOR_CONTROLS.search(line) is not None:
        line = line.translate(_EDITOR_TABLE)
    if INVISIBLE.search(line) is None:
        return line
    return INVISIBLE.sub(_editor_form, line)
