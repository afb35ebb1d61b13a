"""What the explorer remembers between runs (the colour theme), in one small JSON file.

The file is ``$XDG_CONFIG_HOME/tui-tok/settings.json`` (``~/.config/tui-tok/settings.json``
when ``XDG_CONFIG_HOME`` is unset). A missing, unreadable or malformed file means defaults, and
a file that cannot be written is given up on silently: remembering a theme is never worth an
error. Knows nothing of Textual; the app decides what a setting means.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def settings_path() -> Path:
    """Where the settings live, by the XDG base directory rule."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tui-tok" / "settings.json"


def load_settings() -> dict[str, Any]:
    """The saved settings, or ``{}`` when there are none or they cannot be read."""
    try:
        data = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_setting(key: str, value: Any) -> None:
    """Set one setting, keeping the others; written to a temporary file then renamed, so a
    crash never leaves half a file."""
    path = settings_path()
    settings = load_settings()
    if settings.get(key) == value and path.exists():
        return
    settings[key] = value
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass
