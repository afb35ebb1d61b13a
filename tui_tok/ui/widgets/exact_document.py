"""``ExactDocument``: a TextArea document whose ``text`` is exactly the text put in.

Textual's ``Document`` splits lines with ``str.splitlines``, so CR, CR LF, VT, FF, U+001C-1E,
U+0085, U+2028 and U+2029 all came back as LF, and the tokenizer saw another text. Here only
``\\n`` separates lines; every other character stays in its line. What ``TextArea`` draws
(``lines``, ``document[i]``, ``get_line``) is each line through ``display.editor_text``: one
character, one cell per character (a CR shows as ``␍``, a ZWJ as ``◌``), so columns and
cursor moves stay those of the exact text, and no control character reaches the terminal.
What it copies and what is tokenized (``text``, ``get_text_range``) is exact.

Also keeps the start offset of every line (computed once per edit, vectorised), so the
index <-> location conversions the tokenize view makes on each result do not walk every line
of a 10 MB text in Python.

Leaves out syntax highlighting (``SyntaxAwareDocument``): the editor has no language.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from rich.cells import cell_len
from textual.geometry import Size
from textual.widgets.text_area import Document, EditResult, Location

from tui_tok.explore.display import editor_text


class ExactDocument(Document):
    """A document split on ``\\n`` only, drawn through ``editor_text``."""

    def __init__(self, text: str) -> None:
        # not Document's __init__ (it splits lines its own way); every method that reads lines is
        # overridden here, so none of Document's private state is used
        self._exact: list[str] = text.split("\n")
        self._shown: list[str] | None = None
        self._starts: np.ndarray | None = None
        self._text: str | None = text
        self.version = 0
        """Edits so far (a measurement of the lines is valid while it is unchanged)."""

    # --- what TextArea draws --------------------------------------------------------------------

    @property
    def lines(self) -> list[str]:
        if self._shown is None:
            self._shown = [editor_text(line) for line in self._exact]
        return self._shown

    def __getitem__(self, line_index):  # type: ignore[no-untyped-def, override]  # int or slice, as Document's
        if self._shown is not None:
            return self._shown[line_index]
        # one line (or a slice) without converting all of a long text's lines
        if isinstance(line_index, slice):
            return [editor_text(line) for line in self._exact[line_index]]
        return editor_text(self._exact[line_index])

    def get_line(self, index: int) -> str:
        return self[index]

    @property
    def line_count(self) -> int:
        return len(self._exact)

    @property
    def n_chars(self) -> int:
        """Characters in ``text`` (without joining it)."""
        return int(self._line_starts()[-1]) - 1

    def get_size(self, tab_width: int) -> Size:
        lines = self.lines
        return Size(max((cell_len(line.expandtabs(tab_width)) for line in lines), default=0), len(lines))

    @property
    def newline(self) -> Literal["\n"]:
        return "\n"

    @property
    def end(self) -> Location:
        return (len(self._exact) - 1, len(self._exact[-1]))

    # --- the exact text ---------------------------------------------------------------------------

    @property
    def text(self) -> str:
        if self._text is None:  # joined once per edit: the view reads it several times
            self._text = "\n".join(self._exact)
        return self._text

    @property
    def exact_lines(self) -> list[str]:
        """The lines as typed (without their ``\\n``)."""
        return self._exact

    def get_text_range(self, start: Location, end: Location) -> str:
        """The exact text between two locations (``Document.get_text_range`` on the exact lines)."""
        if start == end:
            return ""
        (top_row, top_column), (bottom_row, bottom_column) = sorted((start, end))
        lines = self._exact
        if top_row == bottom_row:
            return lines[top_row][top_column:bottom_column]
        parts = [lines[top_row][top_column:], *lines[top_row + 1 : bottom_row]]
        if bottom_row < len(lines):
            parts.append(lines[bottom_row][:bottom_column])
        return "\n".join(parts)

    def replace_range(self, start: Location, end: Location, text: str) -> EditResult:
        top, bottom = sorted((start, end))
        top_row, top_column = top
        bottom_row, bottom_column = bottom
        lines = self._exact
        old_text, old_starts = self._text, self._starts
        replaced = self.get_text_range(top, bottom)
        after = lines[bottom_row][bottom_column:] if bottom_row < len(lines) else ""
        before = lines[top_row][:top_column] if top_row < len(lines) else ""
        insert = text.split("\n")
        column = len(insert[-1]) if len(insert) > 1 else len(before) + len(insert[0])
        insert[0] = before + insert[0]
        insert[-1] = insert[-1] + after
        lines[top_row : bottom_row + 1] = insert
        if self._shown is not None:
            if len(insert) > 1_000:  # a paste: lines are converted when drawn instead
                self._shown = None
            else:
                self._shown[top_row : bottom_row + 1] = [editor_text(line) for line in insert]
        self._starts = self._text = None
        if old_text is not None and old_starts is not None and top_row < bottom_row + 1 < len(old_starts):
            # spliced rather than joined and measured again: a key in a 10 MB text touches one line
            i = int(old_starts[top_row]) + top_column
            j = int(old_starts[bottom_row]) + bottom_column
            self._text = spliced_text(old_text, i, j, text)
            lengths = np.fromiter(map(len, insert[:-1]), dtype=np.int64, count=len(insert) - 1) + 1
            self._starts = np.concatenate((
                old_starts[: top_row + 1],
                int(old_starts[top_row]) + np.cumsum(lengths),
                old_starts[bottom_row + 1 :] + (len(text) - (j - i)),
            ))  # fmt: skip
        self.version += 1
        return EditResult((top_row + len(insert) - 1, column), replaced)

    # --- index <-> location without a walk over every line ---------------------------------------

    def _line_starts(self) -> np.ndarray:
        if self._starts is None:
            lengths = np.fromiter(map(len, self._exact), dtype=np.int64, count=len(self._exact)) + 1
            self._starts = np.concatenate(([0], np.cumsum(lengths)))
        return self._starts

    def get_index_from_location(self, location: Location) -> int:
        row, column = location
        starts = self._line_starts()
        row = min(max(row, 0), len(starts) - 1)
        return int(starts[row]) + column

    def get_location_from_index(self, index: int) -> Location:
        starts = self._line_starts()
        if index < 0 or index > int(starts[-1]) - 1:
            raise ValueError(f"Index {index!r} does not correspond to a location in the document.")
        row = int(np.searchsorted(starts, index, side="right")) - 1
        return (row, index - int(starts[row]))


def spliced_text(old: str, i: int, j: int, text: str) -> str:
    """``old[:i] + text + old[j:]``. That expression copies ``old[j:]`` before joining it: a key
    near the start of a 9M-character text (36 MB when it holds one emoji) had two such strings
    alive besides ``old``, and the heap grew by one each time. An edit in the first half is
    made by ``str.replace`` of the head (a prefix occurs first at 0), which copies ``old`` once."""
    if 2 * j <= len(old):
        return old.replace(old[:j], old[:i] + text, 1)
    return old[:i] + text + old[j:]
