"""``paint_now``: compose a screen's frame at once after an edit or a search result, not on the next tick.

Textual draws a change in three hops: the widget, when its message queue is idle, tells its
screen; the screen, when idle, resumes its frame timer; the timer fires on its own grid of
``1 / TEXTUAL_FPS`` slots. A keystroke that lands less than a slot after the previous frame
(fast typing, pasting line by line, the UI benchmark's back-to-back keys) waits for the next
slot: up to 8 ms at 120 fps, half the keystroke budget; the hops cost ~1 ms more. An edit
has already updated every widget it touches synchronously (``Editor.on_edit``), so the
screen can compose that frame right away, as its timer would: the widgets waiting for a
repaint are handed to the compositor and the changed regions are drawn and written out.

Leaves out anything that needs a layout, a scroll update, a style refresh or a recompose
(for those it does nothing and the timer paints as usual), screens that are not current, and
edits with more input already queued behind them (a burst of keys, a paste sent as keys):
those are left for the timer to draw together, one frame per tick rather than one per key.
Uses Textual internals (the screen's dirty-widget set and timer callback, each widget's
pending flags), checked with ``getattr`` so another Textual version just falls back to the
timer.
"""

from __future__ import annotations

from typing import Any

from textual.events import InputEvent, Paste
from textual.message_pump import MessagePump
from textual.screen import Screen

_WIDGET_FLAGS = ("_layout_required", "_scroll_required", "_refresh_styles_required", "_recompose_required")
_SCREEN_FLAGS = ("_layout_required", "_scroll_required", "_recompose_required")


def paint_now(screen: Screen[Any]) -> bool:
    """Compose and write ``screen``'s frame now if only repaints are pending; False if left to the timer."""
    app = screen.app
    compositor = getattr(screen, "_compositor", None)
    dirty = getattr(screen, "_dirty_widgets", None)
    update = getattr(screen, "_on_timer_update", None)
    if compositor is None or dirty is None or update is None or not screen.is_current:
        return False
    if getattr(app, "_batch_count", 1) or any(getattr(screen, flag, True) for flag in _SCREEN_FLAGS):
        return False
    if _input_waiting(app, screen, screen.focused):
        return False
    widgets = list(getattr(compositor, "visible_widgets", ()))
    if any(getattr(widget, flag, True) for widget in widgets for flag in _WIDGET_FLAGS):
        return False
    for widget in widgets:
        if getattr(widget, "_repaint_required", False):
            # what the widget's idle handler would post to the screen (messages.Update)
            widget._repaint_required = False  # noqa: SLF001
            dirty.add(widget)
    if not dirty:
        return False
    update()
    return True


def _input_waiting(*pumps: MessagePump | None) -> bool:
    """Is a key, mouse or paste event queued for any of ``pumps`` (True when it cannot tell)?"""
    for pump in pumps:
        if pump is None:
            continue
        queue = getattr(pump, "_message_queue", None)
        queued = getattr(queue, "values", getattr(queue, "_queue", None))  # Textual's own Queue / asyncio's
        if queued is None:
            return True
        if any(isinstance(message, (InputEvent, Paste)) for message in list(queued)):
            return True
    return False
