"""Snapshots of every view at 80x24 and 120x40 (pytest-textual-snapshot; update with
``--snapshot-update`` after looking at the SVG): the small terminal shows each view whole (F1-F9
in the footer, readouts not cut), the large one as it is usually seen.

The text holds what a view can get wrong: a pasted function over several lines, a ZWJ emoji
(drawn with ``⟨200D⟩``) and Japanese (two cells a character). Bundled vocabularies only.
"""

from __future__ import annotations

import pytest
from ui_support import settle

from support import vocab_file
from tui_tok import read_gguf
from tui_tok.ui.app import TuiTokApp

SIZES = [(80, 24), (120, 40)]
TEXT = "def f(x):\n    return x * 2\n\nprint(f(21))  # 👨\u200d👩\u200d👧 私は東京に住んでいます。\n\tx = 42"


def _app() -> TuiTokApp:
    gguf = read_gguf(vocab_file("qwen3-vocab").path)
    return TuiTokApp(gguf, text=TEXT, show_timings=False, compare=read_gguf(vocab_file("gpt-2").path))


def _keys(*keys: str):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot.app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot.app, pilot)
        for box in pilot.app.screen.query("TextArea, Input"):  # a blinking cursor: on or off by timing
            box.cursor_blink = False
            # drawn again: TextArea's line cache leaves the cursor out of its key while it does not
            # blink, so a row cached in the blink's off phase came back without the cursor
            box.notify_style_update()
            box.refresh()
        # tables lay their columns out again after a render arrives (the Chat notes wrap in the room left):
        # let that refresh land too, or a loaded machine snapshots the header before it
        await settle(pilot.app, pilot)
        await pilot.pause(0.2)
        await pilot.pause()

    return run_before


VIEWS = {
    # tokenize: the byte token inside 👨 selected (the 21st: qwen3 adds no BOS): drawn in its own style
    "tokenize": ("f1", "escape", "home", *["right"] * 20),
    "tokenize_pieces": ("f1", "ctrl+g"),
    "stream": ("f2", "right", "right", "right"),
    "vocab": ("f3",),
    "metadata": ("f4",),
    "chat": ("f5",),
    "diagnostics": ("f6",),
    "compare": ("f7",),
    "explain": ("f1", "escape", "home", "right", "f8"),
    "keys": ("f1", "f9"),
}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("view", list(VIEWS))
def test_view_at_size(snap_compare, view: str, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_app(), terminal_size=size, run_before=_keys(*VIEWS[view]))
