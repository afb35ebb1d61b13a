"""Regenerate ``screenshots/*.svg``: one picture per view of the explorer on bundled assets.

Run ``python tools/screenshots.py``; the README shows these files. Pictures are taken with
the app driven headless (Pilot) at 120x36, after every background worker finished.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots"
SIZE = (120, 36)
TEXT = "Hello world! <|im_start|>user\n日本語のテキスト 🙂 naïve café\n\tdef f(x):  return x ** 2\n"

COMPARE = {"compare.svg": "ggml-vocab-phi-3.gguf"}
"""Shots taken with a second file (``tui-tok A --compare B``)."""

# (file name, asset, text, keys; "type:" types text key by key)
SHOTS: list[tuple[str, str, str, list[str]]] = [
    ("tokenize.svg", "qwen3-vocab.gguf", TEXT, ["escape", "home", "right", "right"]),
    ("tokenize-parse-special.svg", "qwen3-vocab.gguf", TEXT, ["ctrl+t", "ctrl+g"]),
    ("stream.svg", "ggml-vocab-phi-3.gguf", "Stream 🙂 日本", ["f2", *["right"] * 6]),
    ("vocabulary.svg", "qwen3-vocab.gguf", TEXT, ["f3", "type:日本"]),
    ("metadata.svg", "qwen3-vocab.gguf", TEXT, ["f4", "ctrl+f", "type:token"]),
    ("compare.svg", "qwen3-vocab.gguf", TEXT, ["ctrl+l"]),  # with --compare phi-3 (COMPARE below)
    ("bert.svg", "ggml-vocab-bert-bge.gguf", "Hello World! naïve 日本語 [SEP]", ["ctrl+t"]),
    ("diagnostics.svg", "ggml-vocab-phi-3.gguf", TEXT, ["f6"]),
    ("chat.svg", "qwen3-vocab.gguf", TEXT, ["f5", "end", "type:<|im_end|>"]),
    # the assistant's message gets a tool call (ctrl+t), a tool message (ctrl+n, ctrl+r twice) answers it
    (
        "chat-tools.svg",
        "qwen3-vocab.gguf",
        TEXT,
        [
            "f5",
            "shift+tab",
            "ctrl+t",
            "type:get_weather",
            "tab",
            "type:call_1",
            "tab",
            'type:{"city": "Paris"}',
            "ctrl+n",
            "ctrl+r",
            "ctrl+r",
            "type:20 C",
            "tab",
            "type:call_1",
            "tab",
            "type:get_weather",
        ],
    ),
    ("explain-bpe.svg", "qwen3-vocab.gguf", "Hello tokenizer world!", ["escape", "home", "right", "f8", "n", "n"]),
    (
        "explain-ugm.svg",
        "t5-botchan-en-unigram-1000.gguf",
        "Hello tokenizer world!",
        ["escape", "home", "right", "right", "f8"],
    ),
]


async def _shoot(name: str, asset: str, text: str, keys: list[str]) -> None:
    from tui_tok import read_gguf
    from tui_tok.ui.app import TuiTokApp

    other = COMPARE.get(name)
    app = TuiTokApp(read_gguf(ROOT / "assets" / asset), text=text, show_timings=False,
                    compare=None if other is None else read_gguf(ROOT / "assets" / other))  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:

        async def settle() -> None:
            for _ in range(3):
                await app.workers.wait_for_complete()
                await pilot.pause()

        await settle()
        for key in keys:
            if key.startswith("type:"):
                for ch in key[5:]:
                    await pilot.press(ch)
            else:
                await pilot.press(key)
            await settle()
        app.save_screenshot(name, path=str(OUT))
    print(f"wrote {OUT / name}")


async def _shoot_picker(name: str = "picker.svg") -> None:
    """The picker of ``tui-tok`` without an argument, over the test suite's fake stores."""
    import tempfile

    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "sources")]
    from fake_stores import build_home, home_env

    from tui_tok.sources import find_models
    from tui_tok.ui.screens.picker import PickerApp, sample_choice, stored_choice

    with tempfile.TemporaryDirectory() as home:
        build_home(Path(home))
        app = PickerApp([sample_choice(), *(stored_choice(m) for m in find_models(home_env(Path(home))))])
        async with app.run_test(size=(120, 16)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("down")
            app.save_screenshot(name, path=str(OUT))
    print(f"wrote {OUT / name}")


def main() -> int:
    OUT.mkdir(exist_ok=True)
    wanted = set(sys.argv[1:])
    for shot in SHOTS:
        if not wanted or shot[0] in wanted:
            asyncio.run(_shoot(*shot))
    if not wanted or "picker.svg" in wanted:
        asyncio.run(_shoot_picker())
    return 0


if __name__ == "__main__":
    sys.exit(main())
