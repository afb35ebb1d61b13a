"""``SearchBox``: an ``Input`` whose keystrokes do not lay out the whole screen.

Textual 8's ``Input`` sets ``virtual_size`` to its text's width on every value change, and
``Widget.virtual_size`` is a reactive declared with ``layout=True``: each keystroke in a search
box cost a full layout of the screen (3-16 ms here, on top of the search itself). A search box
has a fixed outer size (app.tcss), and ``Input`` scrolls its text by its cursor within that
size, reading ``virtual_size`` only for the scroll limits; so here the reactive only repaints.

Leaves out: an auto-sized ``Input`` (``Input`` itself asks for a layout when its dimensions are
``auto``, which still happens).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class SearchBox(Input):
    """A one-line ``Input`` for search queries (see module docstring)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=True)
