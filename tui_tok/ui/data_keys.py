"""The keys of copying and of the file and model commands (``ui/clipboard.py``,
``ui/screens/session_io.py``, ``ui/model_switch.py``); their actions: ``ui/data_actions.py``.

Here, apart from the commands, so that the app's bindings cost nothing at start-up. alt+letter
keys are priority bindings: they also work inside text boxes (where alt+letter types nothing).
"""

from __future__ import annotations

from textual.binding import Binding

DATA_COMMANDS = (
    (
        "alt+s",
        "save_session",
        "Save session…",
        "Write the text, toggles, conversation and compare target to a JSON file",
    ),
    (
        "alt+l",
        "load_session",
        "Load session…",
        "Reopen a saved session (text, toggles, conversation), or load a conversation file (--messages form)",
    ),
    ("alt+o", "open_text", "Open text file…", "Load a file's exact bytes into the Tokenize view"),
    ("alt+w", "save_text", "Save text…", "Write the Tokenize view's text to a file, byte for byte"),
    (
        "alt+e",
        "export_tokens",
        "Export tokens (JSONL)…",
        'One {"id", "piece", "start", "end"} line per token, byte offsets',
    ),
    ("alt+p", "export_prompt", "Export chat prompt…", 'The rendered chat prompt as {"text", "ids"} JSON'),
)
"""(key, action, palette title, help) of each file command."""

BINDINGS = [
    # the view's ids, prompt, finding, diff or trace; a text box with a selection copies that instead.
    # In the footer of every view that copies (a priority binding: shown over a text box's own ctrl+c)
    Binding("ctrl+c", "copy_view", "Copy", priority=True),
    Binding("ctrl+c", "help_quit", show=False),  # where nothing is copied: says so (DataActions.action_help_quit)
    *(Binding(key, f"data('{action}')", title.rstrip("…"), show=False, priority=True)
      for key, action, title, _help in DATA_COMMANDS),
    Binding("alt+m", "switch_model(False)", "Open model", show=False, priority=True),
    Binding("alt+c", "switch_model(True)", "Compare with", show=False, priority=True),
]  # fmt: skip
"""The app's bindings for copying, the file commands and opening models."""
