"""``CheckBox``: Textual's ``Checkbox`` with a mark only when it is on.

Textual draws ``▐X▌`` both ways and tells on from off by colour alone, which a monochrome
terminal, a screenshot in grey or a colour-blind user cannot see. This one draws ``▐X▌`` when
on and ``▐ ▌`` when off; same width, so nothing moves.
"""

from __future__ import annotations

from textual.widgets import Checkbox


class CheckBox(Checkbox):
    """A ``Checkbox`` whose mark shows its value without colour."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # the name Textual reads
        return "X" if self.value else " "
