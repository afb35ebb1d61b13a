"""``paint_now``: compose a screen's frame at once after an edit or a search result, not on the next tick.

Textual draws a change in three hops: the widget, when its message queue is idle, tells its
screen; the screen, when idle, resumes its frame timer; the timer fires on its own grid of
``1 / TEXTUAL_FPS`` slots. A keystroke that lands less than a slot after the previous frame
(fast typing, pasting line by line, the UI benchmark's back-to-back keys) waits for the next
slot: up to 1/120 s at 120 fps, half the keystroke budget; the hops cost more. An edit
has already updated every widget it touches synchronously (``Editor.on_edit``), so the
screen can compose that frame right away, as its timer would: the widgets waiting for a
repaint are handed to the compositor and the changed regions are drawn and written out.

Leaves out anything that needs a layout, a scroll update, a style refresh or a recompose
(for those it does nothing and the timer paints as usual), screens that are not current, and
edits with more input already queued behind them (a burst of keys, a paste sent as keys):
those are left for the timer to draw together, one frame per tick rather than one per key.
Uses Textual internals (the screen's dirty-widget set and timer callback, each widget's
pending flags: ``textual_compat``), so another Textual version, or ``TUI_TOK_PLAIN_TEXTUAL=1``,
just falls back to the timer.
"""

from __future__ import annotations

from typing import Any

from textual.events import InputEvent, Paste
from textual.message_pump import MessagePump
from textual.screen import Screen

from tui_tok.ui.textual_compat import layout_pending, queued_messages, screen_frame, take_repaint


def paint_now(screen: Screen[Any]) -> bool:
    """Compose and write ``screen``'s frame now if only repaints are pending; False if left to the timer."""
    frame = screen_frame(screen)
    if frame is None or not screen.is_current:
        return False
    compositor, dirty, update = frame
    widgets = list(getattr(compositor, "visible_widgets", ()))
    if _input_waiting(screen.app, screen, screen.focused) or layout_pending(screen.app, screen, widgets):
        return False
    for widget in widgets:
        if take_repaint(widget):  # what the widget's idle handler would post to the screen (messages.Update)
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
        queued = queued_messages(pump)
        if queued is None:
            return True
        if any(isinstance(message, (InputEvent, Paste)) for message in queued):
            return True
    return False
