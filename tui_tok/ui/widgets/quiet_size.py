"""``set_virtual_size``: change a scrolling widget's content size without a layout of the screen.

``Widget.virtual_size`` is a reactive declared with ``layout=True``: every assignment that
changes it makes Textual lay out the whole screen on the next frame and repaint every widget
and scrollbar (a slow frame in the tokenize view whenever a line wraps once more or the id
strip gains a row). Our scrolling
widgets have fixed outer sizes (app.tcss), so only their scrollbars depend on the content
size; this updates those (``textual_compat.scroll_update``, what a layout pass would call)
and clamps the scroll offset. A scrollbar that appears or disappears still asks for a layout
itself (its ``display`` changes), so nothing is left stale.

Leaves out widgets whose outer size depends on their content (``height: auto``): they need
the layout pass.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget

from tui_tok.ui.textual_compat import scroll_update


def set_virtual_size(widget: Widget, size: Size) -> None:
    """Set ``widget.virtual_size`` to ``size``, updating its scrollbars but not the layout."""
    if widget.virtual_size == size:
        return
    scroll_update(widget, size)
