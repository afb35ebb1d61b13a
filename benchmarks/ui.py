"""Explorer responsiveness, driven headless with Pilot: ``python -m benchmarks ui [GGUF]``.

Prints: start -> first paint; keystroke -> token view repainted (p50/p95) with 2 KB and
100 KB of text (and when that whole frame was composed and handed to the terminal driver:
headless, so the driver writes nothing; a real terminal adds the escape-code encoding); vocabulary
regex search over gemma-4's 262k pieces (pure and through the UI).
Targets: first paint <= 1 s; keystroke p95 <= 16 ms (2 KB) / <= 50 ms (100 KB); search <= 30 ms.
A calibration figure (``sum(range(10**6))``) is printed before and after the keystroke runs: the
machine is shared, and every figure here grows with its load.

"Repainted" is when the token view's rows for the first frame after the new tokens were
built (``PaintClock``: the end of its ``render_lines``; before session 2 it was the start of
its top row, a little earlier). Since session 3 that frame is composed inside the edit
(``ui.paint_now``), so nothing waits for the screen's frame timer. Keystrokes are ``TextArea.insert`` calls at the top of the
text (a key event adds ~60 ms of Pilot waiting); every keystroke changes the first line.
100 keystrokes with 2 KB and 40 with 100 KB are timed, after ``WARM_UP_KEYS`` untimed ones.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GEMMA4 = ROOT.parent / "shared" / "vocabs" / "ggml-vocab-gemma-4.gguf"
PROSE = (
    "The quick brown fox jumps over the lazy dog. Tokenizers split text into pieces; "
    "日本語も少し。 Numbers 12345 and code: def f(x): return x ** 2\n"
)


WARM_UP_KEYS = 3
"""Untimed keystrokes first: the first one after opening lays out the screen once (one-time)."""


def calibration_ms() -> float:
    """Median of 5 timings of ``sum(range(10**6))``: how busy the machine is (quiet: ~16-20 ms)."""
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        sum(range(10**6))
        runs.append((time.perf_counter() - start) * 1000)
    return statistics.median(runs)


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def _settle(app: Any, pilot: Any) -> None:
    """Let the app's start-up workers (tokenizer, index) finish and the screen catch up."""
    for _ in range(3):
        await app.workers.wait_for_complete()
        await pilot.pause()


async def _until_painted(widget: Any, since: float) -> None:
    """Wait until ``widget`` (a ``PaintClock``) has been drawn into a frame after ``since``."""
    while widget.painted_at < since:
        await asyncio.sleep(0.0005)


def _clock_frames(app: Any) -> list[float]:
    """perf_counter() each time the app hands a finished frame to its driver (appended to the list)."""
    stamps: list[float] = []
    display = app._display  # benchmark probe: where a composed frame is written out

    def timed(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if renderable is not None:
            stamps.append(time.perf_counter())

    app._display = timed
    return stamps


async def _keystrokes(path: Path, size: int, n: int) -> tuple[list[float], int, float, list[float]]:
    from textual.widgets import TextArea

    from tui_tok import read_gguf
    from tui_tok.ui.app import TuiTokApp
    from tui_tok.ui.screens.tokenize import TokenizeScreen
    from tui_tok.ui.widgets.token_view import TokenView

    text = (PROSE * (size // len(PROSE) + 1))[:size]
    app = TuiTokApp(read_gguf(path), text=text)
    times: list[float] = []
    frames: list[float] = []  # when the whole frame holding the new tokens was handed to the driver
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(app, pilot)
        written = _clock_frames(app)
        screen = app.screen
        assert isinstance(screen, TokenizeScreen)
        editor = screen.query_one("#tok-input", TextArea)
        editor.move_cursor((0, 0))
        view = screen.query_one(TokenView)
        await pilot.pause()
        for i in range(-WARM_UP_KEYS, n):
            # what a typed key does (Pilot.press itself adds ~60 ms of test-harness waiting)
            before = screen._generation  # benchmark probe
            start = time.perf_counter()
            editor.insert("abcdefghij"[i % 10])
            while screen._generation == before or screen._shown_generation != screen._generation:
                await asyncio.sleep(0.0005)
            await _until_painted(view, screen.last_result_at)
            while not written or written[-1] < view.painted_at:
                await asyncio.sleep(0.0005)
            if i >= 0:
                times.append(view.painted_at - start)
                frames.append(min(t for t in written if t >= view.painted_at) - start)
            await pilot.pause()
        # typing stops: how long until the exact whole-text result is drawn
        stop = time.perf_counter()
        while (
            screen.query_one("#tok-stats").has_class("-provisional") or screen._shown_generation != screen._generation
        ):
            await asyncio.sleep(0.002)
        exact = time.perf_counter() - stop
    return times, len(text.encode()), exact, frames


async def _first_paint(path: Path) -> tuple[float, float, float]:
    from tui_tok.ui.app import TuiTokApp, open_model

    t0 = time.perf_counter()
    gguf = open_model(path)  # as ``tui-tok FILE`` reads it
    t_read = time.perf_counter() - t0
    app = TuiTokApp(gguf)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.first_paint_at is None:
            await asyncio.sleep(0.001)
        t_paint = app.first_paint_at - t0
        while app.tokenizer_ready_at is None:  # built in a thread after the first paint
            await asyncio.sleep(0.005)
        t_ready = app.tokenizer_ready_at - t0
        await pilot.pause()
    return t_read, t_paint, t_ready


async def _search_ui(path: Path, queries: list[str]) -> list[tuple[str, float, int]]:
    from textual.widgets import Input

    from tui_tok import read_gguf
    from tui_tok.ui.app import TuiTokApp
    from tui_tok.ui.screens.vocab import VocabScreen
    from tui_tok.ui.widgets.vocab_table import VocabTable

    app = TuiTokApp(read_gguf(path), load_tokenizer=False)
    out = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f3")
        while app.vocab_index is None:
            await asyncio.sleep(0.01)
        await _settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, VocabScreen)
        box = screen.query_one("#vocab-search", Input)
        table = screen.query_one(VocabTable)
        times: dict[str, list[float]] = {q: [] for q in queries}
        hits: dict[str, int] = {}
        for _ in range(5):  # each query 5 times, in turn, so every search changes the result
            for q in queries:
                start = time.perf_counter()
                box.value = q
                while screen.last_result is None or screen.last_result.query != q:
                    await asyncio.sleep(0.0005)
                await _until_painted(table, screen.last_result_at)
                times[q].append(table.painted_at - start)
                hits[q] = len(screen.last_result.ids)
                await pilot.pause()
        out = [(q, statistics.median(times[q]), hits[q]) for q in queries]
    return out


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks ui", description=__doc__.splitlines()[0])
    parser.add_argument(
        "gguf",
        nargs="?",
        type=Path,
        default=ROOT / "assets" / "qwen3-vocab.gguf",
        help="the file to open (default: the bundled Qwen3 sample)",
    )
    path = parser.parse_args(argv).gguf
    print(f"file: {path.name}")
    print(f"calibration: sum(range(10**6)) {calibration_ms():.0f} ms (quiet machine ~16-20 ms; figures scale with it)")
    t_read, t_paint, t_ready = asyncio.run(_first_paint(path))
    print(
        f"start -> first paint: {t_paint * 1000:.0f} ms (read_gguf {t_read * 1000:.0f} ms); tokenizer ready at {t_ready * 1000:.0f} ms"
    )
    for size, n in ((2_000, 100), (100_000, 40)):
        times, nbytes, exact, frames = asyncio.run(_keystrokes(path, size, n))
        ms = [t * 1000 for t in times]
        fms = [t * 1000 for t in frames]
        print(
            f"keystroke -> token view repainted, {nbytes / 1000:.0f} KB: p50 {statistics.median(ms):.1f} ms, "
            f"p95 {_pct(ms, 95):.1f} ms, max {max(ms):.1f} ms (n={n}); exact whole-text result "
            f"{exact * 1000:.0f} ms after typing stops"
        )
        print(
            f"  whole frame composed and handed to the driver: p50 {statistics.median(fms):.1f} ms, p95 {_pct(fms, 95):.1f} ms"
        )
        print(f"  calibration after: {calibration_ms():.0f} ms")
    if GEMMA4.is_file():
        from tui_tok import read_gguf
        from tui_tok.explore.vocab_index import build_vocab_index, search

        t0 = time.perf_counter()
        index = build_vocab_index(read_gguf(GEMMA4).metadata)
        print(
            f"gemma-4 vocab index ({index.n_tokens:,} pieces) built in {(time.perf_counter() - t0) * 1000:.0f} ms (background)"
        )
        queries = ["/^▁the/", "/ing$/", "/^<unused\\d+>$/", "/\\p{Han}{3}/", "/^▁[A-Z][a-z]+ed$/", "the", " the"]
        for q in queries:
            runs = []
            for _ in range(5):
                s = time.perf_counter()
                r = search(index, q)
                runs.append(time.perf_counter() - s)
            print(
                f"  search {q!r:26} {len(r.ids):>6} hits: median {statistics.median(runs) * 1000:.1f} ms, min {min(runs) * 1000:.1f} ms"
            )
        for q, t, n in asyncio.run(_search_ui(GEMMA4, queries[:3])):
            print(f"  through the UI {q!r:18} {n:>6} hits: typed -> table repainted, median of 5: {t * 1000:.1f} ms")
    else:
        print(f"gemma-4 vocab not found at {GEMMA4}: search benchmark skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
