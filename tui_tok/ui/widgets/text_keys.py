"""The keys of tui-tok's text boxes: Textual's ``TextArea`` bindings without F6 and F7, and
select-all and clear, the same in every box (each ``TextArea`` and ``Input``, the palette's too).

The app binds F1-F8 to its views with priority, so TextArea's F6 and F7 (select line / select
all) never fire; but the footer still listed the app's F6 where the focused TextArea's F6 stood,
before F1. Text boxes of tui-tok take ``TEXT_AREA_BINDINGS`` instead (``inherit_bindings=False``:
``widgets/editor.py``). Textual selects all with F7 in a ``TextArea`` and ctrl+shift+a in an ``Input``
(which terminals send as ctrl+a, there "go to the start"): neither works here, so
``TEXT_BOX_BINDINGS`` (the apps' priority bindings, ``TextBoxActions``) make ctrl+a select all and
alt+x clear the focused box (undoable with ctrl+z in a ``TextArea``), as editors outside the
terminal do; home goes to the line's start. Elsewhere those keys pass on (``SkipAction``).
"""

from __future__ import annotations

from typing import Any

from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.scroll_view import ScrollView
from textual.widgets import Input, TextArea

TAKEN_BY_APP = frozenset({"f6", "f7"})


def _key(binding: BindingType) -> str:
    return binding.key if isinstance(binding, Binding) else binding[0]


def _without_ctrl_a(binding: BindingType) -> BindingType:
    if isinstance(binding, Binding) and binding.key == "home,ctrl+a":
        return Binding("home", binding.action, binding.description, show=False)
    return binding


_OWN = [_without_ctrl_a(b) for b in TextArea.BINDINGS if _key(b) not in TAKEN_BY_APP]
_OWN_KEYS = frozenset(k.strip() for b in _OWN for k in _key(b).split(","))

TEXT_AREA_BINDINGS: list[BindingType] = [
    *(b for b in ScrollView.BINDINGS if not _OWN_KEYS & {k.strip() for k in _key(b).split(",")}),
    *_OWN,
]
"""What ``TextArea`` merges from its bases and itself, less the keys the app takes. As in Textual's
own merge, TextArea's binding of a key replaces ScrollView's (home and end move the cursor to the
line's start and end; in one flat list ScrollView's came first and scrolled instead)."""

TEXT_BOX_BINDINGS: list[BindingType] = [
    Binding("ctrl+a", "text_box('select_all')", "Select all", show=False, priority=True),
    Binding("alt+x", "text_box('clear')", "Clear the box", show=False, priority=True),
]
"""Select all and clear in the focused text box (``TextBoxActions``)."""


class TextBoxActions:
    """Mixin for an app: the action of ``TEXT_BOX_BINDINGS``.

    The app runs a priority binding as soon as it reads the key, but hands the keys typed before
    it to the box's own queue: in one terminal read (``xy`` ctrl+a ``z``) the box had not typed
    ``xy`` yet when everything was selected, and ``z`` went after them. The action waits in the
    box's queue (``call_later``), behind the keys typed before it and ahead of those after."""

    def action_text_box(self, what: str) -> None:
        box: Any = getattr(self, "focused", None)
        if not isinstance(box, (TextArea, Input)):
            raise SkipAction()  # not in a text box: the key is someone else's
        box.call_later(_text_box_action, box, what)


def _text_box_action(box: TextArea | Input, what: str) -> None:
    if isinstance(box, TextArea):
        if what == "select_all":
            box.select_all()
        elif not box.read_only:
            box.clear()
    elif what == "select_all":
        box.action_select_all()
    else:
        box.clear()
