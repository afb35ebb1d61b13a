"""``GcPacer``: run Python's cyclic garbage collector between frames instead of inside them.

Left automatic, the collector runs whenever 700 container objects have piled up, which is
mid-keystroke: several young collections per keystroke and an older one every few
keystrokes, landing inside the key -> repaint path. ``GcPacer``
switches automatic collection off while the app runs and does the same collections (same
thresholds as CPython's defaults) from a timer on the event loop, which cannot interrupt a
frame. Objects freed by reference counting (nearly all) are unaffected.

Leaves out the collections a worker thread would have triggered mid-job: those wait for the
next tick of the timer (a few tens of milliseconds).
"""

from __future__ import annotations

import gc
from typing import Any

from textual.app import App
from textual.timer import Timer

INTERVAL_S = 0.05
"""How often to check whether a collection is due."""


class GcPacer:
    """Own the collector's timing for one app (``start`` on mount, ``stop`` on unmount)."""

    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self._timer: Timer | None = None
        self._was_enabled = gc.isenabled()
        self.collections = 0
        """Collections run so far (tests check the pacer runs)."""

    def start(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer = self._app.set_interval(INTERVAL_S, self.tick, name="gc-pacer")

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._was_enabled:
            gc.enable()

    def tick(self) -> None:
        """Collect the generations CPython would have collected by now."""
        threshold0, threshold1, threshold2 = gc.get_threshold()
        count0, count1, count2 = gc.get_count()
        if count0 < threshold0:
            return
        generation = 0
        if count1 + 1 >= threshold1:
            generation = 1
            idle = getattr(self._app, "text_idle", None)  # clear while a long text is tokenized whole
            if count2 + 1 >= threshold2 and (idle is None or idle.is_set()):
                generation = 2  # (a full collection walks the unfrozen vocabulary: ~0.4 s the worker waited for)
        gc.collect(generation)
        self.collections += 1
