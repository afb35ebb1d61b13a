"""``SearchBox``: an ``Input`` whose keystrokes do not lay out the whole screen; and
``type_to_search``: what is typed on a table goes to its screen's search box.

Textual 8's ``Input`` sets ``virtual_size`` to its text's width on every value change, and
``Widget.virtual_size`` is a reactive declared with ``layout=True``: each keystroke in a search
box cost a full layout of the screen (on top of the search itself). A search box
has a fixed outer size (app.tcss), and ``Input`` scrolls its text by its cursor within that
size, reading ``virtual_size`` only for the scroll limits; so here the reactive only repaints.

Its own keys (ctrl+u, ctrl+w, Enter ...) act when the box reads them, in order with the
characters typed around them. Textual runs a widget's bindings only once the key has bubbled up
to the app, while the box inserts a character at once: in a burst of keys (a terminal read,
``ctrl+u text`` at once) the ``ctrl+u`` came after ``text`` and deleted it.

A person looking at a table with a search box above it types to search: a letter on the table
did nothing, or ran a one-letter binding of the app (``q`` quit, with the typed text and a
built conversation lost). A screen names its search box (``SEARCH_BOX``) and the widgets whose
typing goes there (``TYPED_FROM``); the app calls ``type_to_search`` on each key before Textual
routes it. The redirect happens there, in the app's one queue of keys, because a focus change
made by a widget's handler comes after the app has already handed the next keys of a burst
(a terminal read) to the old focus: they would go to the table, or arrive out of order.

Leaves out: an auto-sized ``Input`` (``Input`` itself asks for a layout when its dimensions are
``auto``, which still happens).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input

from tui_tok.ui.textual_compat import KeyFirstInput, forward_key, key_bindings


class SearchBox(KeyFirstInput):
    """A one-line ``Input`` for search queries (see module docstring)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # a key typed on the table is inserted, not put in place of the query (which Input's
        # select-all on focus did): nothing typed is lost; ctrl+u clears
        kwargs.setdefault("select_on_focus", False)
        super().__init__(*args, **kwargs)

    async def own_key(self, event: events.Key) -> bool:
        for binding in key_bindings(self).get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True  # Input's own handling (and the app's binding check) skipped
        return False


def type_to_search(app: App[Any], event: events.Key) -> bool:
    """Send ``event``, a key just read, to the current screen's search box when it is printable,
    typed on one of the screen's ``TYPED_FROM`` widgets, and bound to nothing below the app
    (the app's one-letter keys give way: ``1``-``6``, ``?``). True when sent."""
    if event.is_forwarded or not event.is_printable:
        return False
    screen = app.screen
    box_id: str | None = getattr(screen, "SEARCH_BOX", None)
    sources: frozenset[str] = getattr(screen, "TYPED_FROM", frozenset())
    focused = screen.focused
    if box_id is None or focused is None or focused.id not in sources:
        return False
    bound = screen.active_bindings.get(event.key)
    if bound is not None and bound.node is not app:
        return False  # the table's or the screen's own key (none is printable today)
    box = screen.query_one(f"#{box_id}", Input)
    screen.set_focus(box)  # now, not later as Widget.focus does: the next key of a burst goes there too
    return forward_key(box, event)  # as App.on_event hands keys to the focused widget
