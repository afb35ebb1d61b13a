"""``BulkPasteParser``: Textual's terminal input parser, taking a bracketed paste in bulk.

Textual's ``XTermParser`` reads input one character at a time through a generator and keeps
a pasted text as a list of one-character strings: a 10 MB paste took tens of seconds of the
input thread (holding the interpreter the UI needs) and ~1.5 GB. Here the text between the
paste markers is found with ``str.find`` on each chunk read, and arrives as one
``events.Paste`` holding exactly what was pasted (Textual's parser also drops NUL from pastes).
Everything outside a paste goes to Textual's parser unchanged. A start marker split across two
reads right after its ESC is left to Textual too (its slow path, which drops NUL and stops at
an ESC in the paste); one split later is held until the next read.

In order: Textual's parser holds keys after an ESC until it sees what follows or its wait times
out (``ESC x`` is alt+x, or the start of a sequence). A paste found in the same read (or the
next, before the timeout) went out at once, before them: alt+x then a paste in one burst
cleared the pasted text. What the parser holds is let out (``textual_compat.let_out_held_keys``)
before each paste, and before each ESC handed to it: Textual gives up a held sequence cut by a
new ESC as plain characters (alt+x then an arrow key in one read typed ``^x``).

``use_bulk_paste`` installs it in the Linux driver (patching the name the driver looks the
parser up by, as ``lenient_input`` does for the decoder: ``textual_compat``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual import events
from textual.message import Message

from tui_tok.ui.textual_compat import let_out_held_keys, patch_linux_driver, xterm_parser_base

XTermParser: Any = xterm_parser_base()

ESC = "\x1b"
START = "\x1b[200~"
END = "\x1b[201~"


class BulkPasteParser(XTermParser):
    """``XTermParser`` with bracketed pastes taken in bulk."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._paste: list[str] | None = None
        """The parts of a paste under way (None: not in a paste)."""
        self._carry = ""
        """The end of a read that may be the start of the end marker."""

    def feed(self, data: str) -> Iterable[Message]:  # type: ignore[override]
        if not data:  # end of input
            if self._paste is not None:
                yield events.Paste("".join(self._paste) + self._carry)
            elif self._carry:
                yield from self._keys(self._carry)
            self._paste, self._carry = None, ""
            yield from super().feed(data)
            return
        while data:
            if self._paste is None:
                data = self._carry + data
                self._carry = ""
                i = data.find(START)
                if i < 0:
                    # a read ending in the marker's first characters: held for the next read, but
                    # never a lone ESC (the Escape key: Textual's parser times it out itself)
                    keep = _partial_suffix(data, START)
                    keep = keep if keep >= 2 else 0
                    self._carry = data[len(data) - keep :] if keep else ""
                    if len(data) > keep:
                        yield from self._keys(data[: len(data) - keep])
                    return
                if i:
                    yield from self._keys(data[:i])
                yield from let_out_held_keys(self)  # the keys before the paste come before it
                self._paste = []
                data = data[i + len(START) :]
                continue
            data = self._carry + data
            self._carry = ""
            j = data.find(END)
            if j < 0:
                keep = _partial_suffix(data, END)
                self._paste.append(data[: len(data) - keep])
                self._carry = data[len(data) - keep :]
                return
            self._paste.append(data[:j])
            yield events.Paste("".join(self._paste))
            self._paste = None
            data = data[j + len(END) :]

    def _keys(self, data: str) -> Iterable[Message]:
        """Parse ``data`` (no paste in it) with Textual's parser, letting out what it holds
        before each ESC (the module's docstring)."""
        start = 0
        while start < len(data):
            at = data.find(ESC, start + 1)
            end = len(data) if at < 0 else at
            if data.startswith(ESC, start):
                yield from let_out_held_keys(self)
            yield from super().feed(data[start:end])
            start = end


def _partial_suffix(data: str, marker: str) -> int:
    """Length of the longest end of ``data`` that is a proper start of ``marker``."""
    for n in range(min(len(marker) - 1, len(data)), 0, -1):
        if data.endswith(marker[:n]):
            return n
    return 0


def use_bulk_paste() -> bool:
    """Make the Linux driver parse input with ``BulkPasteParser`` (idempotent); False when
    Textual is left plain (``textual_compat``)."""
    return XTermParser is not object and patch_linux_driver("XTermParser", BulkPasteParser)
