"""``DropControls``: the last guard between a widget and the terminal.

Every view draws strings from the file through ``explore.visible`` (``␛`` for ESC, ``⟨009B⟩`` for
an 8-bit CSI). Should one path forget, a raw control would reach the terminal and act there
(``ESC ] 2 ;`` retitles it, ``ESC [ 7 m`` inverts what follows). This line filter removes C0, DEL
and C1 controls from every drawn segment. Rich counts them as taking no cell, so removing them
moves nothing on the screen; a segment left empty is dropped (Textual warns of empty ones).
"""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")


class DropControls(LineFilter):
    """Removes control characters from drawn text (an app's ``get_line_filters`` adds it)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        search = _CONTROLS.search
        if not any(search(s.text) for s in segments):
            return segments
        out: list[Segment] = []
        for seg in segments:
            if seg.control or not search(seg.text):
                out.append(seg)
                continue
            text = _CONTROLS.sub("", seg.text)
            if text:
                out.append(Segment(text, seg.style))
        return out


DROP_CONTROLS = DropControls()
"""One instance: strips cache what a filter made of them, by filter."""
