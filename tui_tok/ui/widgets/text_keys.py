"""The key bindings of Textual's ``TextArea`` without F6 and F7 (select line / select all).

The app binds F1-F8 to its views with priority, so those two TextArea bindings never fire; but
the footer still lists the app's F6 where the focused TextArea's F6 stands, before F1. Text boxes
of tui-tok take these bindings instead (``inherit_bindings=False``); select all stays on ctrl+a.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType
from textual.scroll_view import ScrollView
from textual.widgets import TextArea

TAKEN_BY_APP = frozenset({"f6", "f7"})


def _key(binding: BindingType) -> str:
    return binding.key if isinstance(binding, Binding) else binding[0]


TEXT_AREA_BINDINGS: list[BindingType] = [
    *ScrollView.BINDINGS,
    *(b for b in TextArea.BINDINGS if _key(b) not in TAKEN_BY_APP),
]
"""What ``TextArea`` merges from its bases and itself, less the keys the app takes."""
