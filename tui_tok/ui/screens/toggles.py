"""``CheckboxToggles``: a screen's bool reactives mirrored by check boxes (``#cb-NAME``) and keys."""

from __future__ import annotations

from textual.dom import DOMNode
from textual.widgets import Checkbox


class CheckboxToggles:
    """Mixin for a screen: ``toggle('NAME')`` flips reactive ``NAME``, a click on the check box
    ``#cb-NAME`` sets it, and the screen's ``watch_NAME`` calls ``_sync_checkbox`` to mirror it."""

    def action_toggle(self, name: str) -> None:
        setattr(self, name, not getattr(self, name))

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        name = (event.checkbox.id or "").removeprefix("cb-")
        if hasattr(self, name) and getattr(self, name) != event.value:
            setattr(self, name, event.value)

    def _sync_checkbox(self, name: str, value: bool) -> None:
        node = self
        assert isinstance(node, DOMNode)
        if not node.is_mounted:
            return
        box = node.query_one(f"#cb-{name}", Checkbox)
        if box.value != value:
            box.value = value
