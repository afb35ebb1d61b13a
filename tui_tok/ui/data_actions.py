"""``DataActions``: the app's actions for the keys of ``ui/data_keys.py`` (copy, files, models) and
their palette commands. Each imports its module when first used, so start-up pays nothing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.app import App, SystemCommand
from textual.screen import Screen
from textual.widgets import Input, TextArea


class DataActions:
    """Mixin for the app: the actions of ``BINDINGS`` and their palette commands (each imports its
    module when first used)."""

    def action_copy_view(self) -> None:
        """ctrl+c: copy what the current view shows (``ui/clipboard.py``), unless the focused text box
        has a selection: then that. In a text box this is decided in the box's queue, as ctrl+a
        selects there (``text_keys.TextBoxActions``): ctrl+a ctrl+c in one read copies the text."""
        from tui_tok.ui.clipboard import copy_main

        focused = self._app.focused
        if isinstance(focused, (TextArea, Input)):
            focused.call_later(self._copy_from, focused)
            return
        copy_main(self._app.screen)

    def _copy_from(self, box: TextArea | Input) -> None:
        from tui_tok.ui.clipboard import copy_main

        if (isinstance(box, TextArea) and box.selected_text) or (isinstance(box, Input) and not box.selection.is_empty):
            box.action_copy()  # the box's own ctrl+c
        else:
            copy_main(self._app.screen)

    def action_help_quit(self) -> None:
        """ctrl+c where nothing is to be copied (Textual's binding): say so, and how to quit."""
        from tui_tok.ui.clipboard import copy_main

        copy_main(self._app.screen)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """ctrl+c only where the view has something to copy (elsewhere: not in the footer, and the
        key goes on as it did)."""
        if action == "copy_view":
            from tui_tok.ui.clipboard import copies

            return bool(copies(self._app.screen))
        return True

    def action_data(self, action: str) -> None:
        """alt+s/l/o/w/e/p: ask for a path, then save, load, open or export (``ui/screens/session_io.py``)."""
        from tui_tok.ui.screens import session_io

        if self._has_file and not isinstance(self._app.screen, session_io.PathPrompt):
            session_io.run(self._app, action)

    def action_switch_model(self, compare: bool) -> None:
        """alt+m / alt+c: pick another model, or the one to compare with (``ui/model_switch.py``)."""
        from tui_tok.ui.model_switch import choose_model

        if self._has_file:
            choose_model(self._app, compare=compare)

    def data_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette's copy, file and model commands."""
        from tui_tok.ui.clipboard import copy_commands
        from tui_tok.ui.model_switch import palette_commands as switch_commands
        from tui_tok.ui.screens.session_io import palette_commands

        yield from copy_commands(screen)
        yield from palette_commands(self._app)
        yield from switch_commands(self._app)

    @property
    def _app(self) -> App[Any]:
        assert isinstance(self, App)
        return self

    @property
    def _has_file(self) -> bool:
        """False while the loading screen is up (no file to save or switch from yet)."""
        return getattr(self, "_session", None) is not None
