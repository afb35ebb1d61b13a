"""``Footer``: Textual's footer, fitted to the terminal's width so every view key (F1-F9) shows.

Textual's footer lists the keys in one row and lets the rest run off the right edge: at 80
columns every view stopped after F5, so F6-F9 were never seen. Its compact style is no way out
(it scrolls the key list under the palette key and leaves a stray letter in the last column).
This one measures the keys first (``plan``) and, while they do not fit, in this order: drops
the space after each description, names the views by their short names (``SHORT``), leaves
out the palette key (^p still opens it), then the screen's own keys, last first (the keys
panel, F9, lists them all), and the copy key (``KEEP_LONGER``: how one finds that a view copies) only
after them. The function keys are never left out. It yields Textual's own ``FooterKey`` (not
exported: ``textual_compat``); without it, the footer is Textual's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer as TextualFooter

from tui_tok.ui.textual_compat import footer_bindings_ready, footer_key_class, overrides_on

SHORT = {"Tokenize": "Tok", "Metadata": "Meta", "Compare": "Cmp", "Vocabulary": "Vocab"}
"""Shorter names of the views for narrow terminals (the full name stays the key's tooltip)."""
PALETTE_CELLS = 13
"""Cells of the palette key docked on the right (`` ^p palette`` with its border and padding)."""
_FUNCTION_KEY = re.compile(r"f\d+")
KEEP_LONGER = ("ctrl+c",)
"""Keys left out only after every other key but the function keys."""


@dataclass(frozen=True, slots=True)
class FooterPlan:
    """How the keys are shown at one width."""

    tight: bool
    """No space after each description."""
    short: bool
    """Views by their ``SHORT`` names."""
    palette: bool
    """The palette key is shown."""
    keep: tuple[bool, ...]
    """Per key (in footer order): shown."""


def plan(keys: list[tuple[str, str, str]], width: int, *, palette: bool = True) -> FooterPlan:
    """Fit ``keys`` (key, key as shown, description) into ``width`` cells (module doc).

    >>> keys = [("ctrl+n", "^n", "In vocab")] + [(f"f{i}", f"f{i}", "Metadata") for i in range(1, 8)]
    >>> plan(keys, 200)
    FooterPlan(tight=False, short=False, palette=True, keep=(True, True, True, True, True, True, True, True))
    >>> plan(keys, 60)
    FooterPlan(tight=True, short=True, palette=False, keep=(False, True, True, True, True, True, True, True))
    >>> plan([("ctrl+c", "^c", "Copy"), ("ctrl+n", "^n", "Add"), ("f1", "f1", "Tok")], 16)
    FooterPlan(tight=True, short=True, palette=False, keep=(True, False, True))
    """

    def cells(tight: bool, short: bool, keep: list[bool]) -> int:
        total = 0
        for (_, shown, description), kept in zip(keys, keep):
            if kept:
                name = SHORT.get(description, description) if short else description
                total += len(shown) + 2 + len(name) + (0 if tight else 1)
        return total

    keep = [True] * len(keys)
    for tight, short in ((False, False), (True, False), (True, True)):
        if cells(tight, short, keep) + (PALETTE_CELLS if palette else 0) <= width:
            return FooterPlan(tight, short, palette, tuple(keep))
    for last in (False, True):  # the screen's keys, last first; then the copy key
        for k in range(len(keys) - 1, -1, -1):
            if cells(True, True, keep) <= width:
                return FooterPlan(True, True, False, tuple(keep))
            if not _FUNCTION_KEY.fullmatch(keys[k][0]) and (keys[k][0] in KEEP_LONGER) == last:
                keep[k] = False
    return FooterPlan(True, True, False, tuple(keep))


class Footer(TextualFooter):
    """Textual's footer, its keys fitted to the width (module doc)."""

    DEFAULT_CSS = """
    Footer.-tight FooterKey.-fit .footer-key--description { padding: 0; }
    """

    _plan: FooterPlan | None = None
    _keys: list[tuple[str, str, str]] = []

    def compose(self) -> ComposeResult:
        footer_key = footer_key_class()
        if footer_key is None or not overrides_on():
            yield from super().compose()
            return
        if not footer_bindings_ready(self):
            return
        shown = [
            (binding, enabled, tooltip)
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show
        ]
        # one key per action, as Textual's footer shows them (its groups are not used here)
        first: dict[str, tuple[Binding, bool, str]] = {}
        for binding, enabled, tooltip in shown:
            first.setdefault(binding.action, (binding, enabled, tooltip))
        items = list(first.values())
        keys = [(b.key, self.app.get_key_display(b), b.description) for b, _, _ in items]
        width = self.size.width or self.screen.size.width or self.app.size.width  # (a split keys panel narrows it)
        palette = self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE
        fit = plan(keys, width, palette=palette)
        self._plan, self._keys = fit, keys
        self.set_class(fit.tight, "-tight")
        for (binding, enabled, tooltip), (key, key_display, description), kept in zip(items, keys, fit.keep):
            if not kept:
                continue
            name = SHORT.get(description, description) if fit.short else description
            yield footer_key(
                key,
                key_display,
                name,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip or description,
                classes="-fit",
            ).data_bind(compact=TextualFooter.compact)
        if fit.palette:
            try:
                _node, binding, enabled, tooltip = self.screen.active_bindings[self.app.COMMAND_PALETTE_BINDING]
            except KeyError:
                return
            yield footer_key(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                classes="-command-palette",
                disabled=not enabled,
                tooltip=binding.tooltip or binding.description,
            )

    def on_resize(self, event: events.Resize) -> None:
        # recomposed only when the keys shown change (a recompose mounts every key anew)
        if self._plan is None or not footer_bindings_ready(self):
            return
        palette = self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE
        if plan(self._keys, event.size.width, palette=palette) != self._plan:
            self.call_after_refresh(self.recompose)
