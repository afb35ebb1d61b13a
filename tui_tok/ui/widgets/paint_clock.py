"""``PaintClock``: when a Line-API widget last drew its top row, for the UI benchmarks.

``benchmarks/ui.py`` measures "input changed -> widget repainted" by waiting until
``painted_at`` passes the time the screen received its result. Widgets call ``mark_paint(y)``
first thing in ``render_line``. Costs one comparison per drawn line; does not draw anything.
"""

from __future__ import annotations

import time


class PaintClock:
    """Mixin: ``painted_at`` is the ``perf_counter()`` of the last draw of row 0 (0.0: never)."""

    painted_at = 0.0
    """perf_counter() when the top row was last drawn (benchmarks wait for it)."""

    def mark_paint(self, y: int) -> None:
        """Call at the start of ``render_line(y)``."""
        if y == 0:
            self.painted_at = time.perf_counter()
