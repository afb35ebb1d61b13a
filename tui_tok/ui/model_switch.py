"""Open another model, or compare with one, from inside the explorer (alt+m, alt+c, the palette).

The picker (``ui/screens/picker.py``) is shown as a screen: the recent local files first
(remembered in the settings, ``RECENT_KEY``), the bundled sample, the local stores, and the box
for a path, URL or shorthand. The picker reads the chosen model (a remote one's header takes a
while; an error stays in the picker); then the app exits with a ``Relaunch``, and ``run_app``
starts the explorer again on the new model with the state collected just before
(``ui/session_io.py``): the same text, toggles and conversation, so one input can be tried on
model after model. A fresh app rebuilds every view, tokenizer and index for the new file, rather
than each view re-initialising itself in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand

from tui_tok.explore.session_file import SessionState
from tui_tok.gguf import GGUFFile
from tui_tok.ui import session_io
from tui_tok.ui.settings import load_settings, save_setting

RECENT_KEY = "recent_models"
MAX_RECENT = 10


@dataclass
class Relaunch:
    """What the next explorer opens: the model (and compare model), their names, the state to carry."""

    gguf: GGUFFile
    label: str | None
    compare: GGUFFile | None
    compare_label: str | None
    session: SessionState


def palette_commands(app: App[Any]) -> list[SystemCommand]:
    return [
        SystemCommand("Open model…", "The picker: another model, with the same text and conversation (alt+m)",
                      lambda: choose_model(app, compare=False)),
        SystemCommand("Compare with…", "The picker: the model the Compare view (F7) sets beside this one (alt+c)",
                      lambda: choose_model(app, compare=True)),
    ]  # fmt: skip


def recent_models() -> list[str]:
    value = load_settings().get(RECENT_KEY)
    return [s for s in value if isinstance(s, str)][:MAX_RECENT] if isinstance(value, list) else []


def remember(spec: str) -> None:
    """Put ``spec`` first in the recent models when it is a local file (made absolute, so it opens from
    anywhere); the picker opens a row by its path, which a URL or shorthand is not."""
    path = Path(spec)
    if not path.is_file():
        return
    spec = str(path.resolve())
    save_setting(RECENT_KEY, [spec, *(s for s in recent_models() if s != spec)][:MAX_RECENT])


def choose_model(app: App[Any], *, compare: bool) -> None:
    """Show the picker (it reads the chosen model, an error stays in it), then relaunch on the model."""
    from tui_tok.sources import display_name
    from tui_tok.ui.screens.picker import Picked, PickerScreen

    if isinstance(app.screen, PickerScreen):
        return

    def chosen(picked: Picked | None) -> None:
        if picked is not None:
            relaunch(app, picked.gguf, display_name(picked.spec, picked.gguf), picked.spec, compare)

    app.push_screen(PickerScreen(_choices(), read_facts=True), chosen)


def _choices() -> list[Any]:
    from tui_tok.sources.stores import find_models
    from tui_tok.ui.screens.picker import Choice, sample_choice, stored_choice

    recent = []
    for spec in recent_models():
        path = Path(spec)
        size = path.stat().st_size if path.is_file() else 0
        recent.append(Choice("recent", spec, path, size, spec))
    return [*recent, sample_choice(), *(stored_choice(m) for m in find_models())]


def relaunch(app: App[Any], gguf: GGUFFile, label: str, spec: str, compare: bool) -> None:
    """Exit with a ``Relaunch`` on ``gguf`` (as the model, or as the compare model) and the state now."""
    remember(spec)
    state = session_io.collect(app)
    session = getattr(app, "session")
    if compare:
        state.compare = session_io.source_name(gguf)
        target = Relaunch(session.gguf, session.label, gguf, label, state)
    else:
        other = getattr(app, "compare_gguf", None)
        target = Relaunch(gguf, label, other, getattr(app, "compare_label", None), state)
    setattr(app, "relaunch", target)
    app.exit(0)
