"""``PaintClock``: when a Line-API widget was last drawn into a frame, for the UI benchmarks.

``benchmarks/ui.py`` measures "input changed -> widget repainted" by waiting until
``painted_at`` passes the time the screen received its result. The stamp is taken after
the widget's rows for the frame were built (``render_lines``), whichever rows those are: a
widget that repaints only its changed rows may not draw its top row at all. Costs one clock
read per frame; draws nothing.
"""

from __future__ import annotations

import time

from textual.geometry import Region
from textual.strip import Strip


class PaintClock:
    """Mixin (before the widget class): ``painted_at`` is the ``perf_counter()`` after the last ``render_lines``."""

    painted_at = 0.0
    """perf_counter() when the widget's rows were last drawn for a frame (0.0: never)."""

    def render_lines(self, crop: Region) -> list[Strip]:
        lines: list[Strip] = super().render_lines(crop)  # type: ignore[misc]
        self.painted_at = time.perf_counter()
        return lines
