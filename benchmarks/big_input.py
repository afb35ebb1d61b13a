"""Big input in the explorer: ``python -m benchmarks big_input [--sizes 1,10] [GGUF]``.

For each size (MB of mixed prose, code and CJK lines) prints, each from a fresh process:
- ``encode``: wall time of ``tui-tok encode MODEL --file F`` (start-up and load included) and
  of the ``Tokenizer.encode`` call alone;
- ``paste``: the text pasted into the tokenize view (headless, 120x40): when the exact token
  count was shown (a long text's comes before its colours), when the coloured tokens were,
  and the longest the UI loop was blocked (a 10 ms timer's largest gap) until then;
- ``keys``: five keys typed at the end afterwards, each: time until the view showed its
  tokens (provisional or exact), and the longest block;
- peak RSS of the app process.
Targets (issue 13): block <= 100 ms; count shown <= 1.5x the ``encode`` time; each key <= 1 s;
peak RSS for 10 MB < 600 MB.
"""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LINES = (
    "The quick brown fox jumps over the lazy dog. Tokenizers split text into pieces.\n",
    "def f(x):\n    return x ** 2  # squares\n",
    "日本語のテキストも少し混ぜる。 Numbers 12345 and 67.89\n",
    "\n",
)


def make_text(megabytes: float) -> bytes:
    block = "".join(LINES).encode()
    n = max(1, int(megabytes * 1_000_000) // len(block))
    return block * n


def _encode_times(model: str, path: Path) -> dict[str, float]:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tui_tok", "encode", model, "--file", str(path)], check=True,
                   stdout=subprocess.DEVNULL, cwd=ROOT)  # fmt: skip
    wall = time.perf_counter() - start
    from tui_tok.loader import load_tokenizer
    from tui_tok.ui.app import open_model

    tok = load_tokenizer(open_model(model))
    data = path.read_bytes()
    start = time.perf_counter()
    n = len(tok.encode(data))
    return {"encode_cli_s": wall, "encode_call_s": time.perf_counter() - start, "tokens": n}


async def _app_run(model: str, path: Path) -> dict[str, Any]:
    from textual import events

    from tui_tok.ui.app import TuiTokApp, open_model
    from tui_tok.ui.screens.tokenize import TokenizeScreen

    text = path.read_bytes().decode("utf-8", "surrogateescape")
    app = TuiTokApp(open_model(model), text="", show_timings=False)
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    out: dict[str, Any] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TokenizeScreen)
        app.set_interval(0.01, tick)
        await pilot.pause(0.05)
        gaps.clear()
        last[0] = time.perf_counter()
        start = time.perf_counter()
        app.post_message(events.Paste(text))
        while not (len(app.ids) and screen.count_shown_at > start):
            await asyncio.sleep(0.01)
            if time.perf_counter() - start > 600:
                break
        out["count_shown_s"] = screen.count_shown_at - start
        while not (screen.last_result_at > start and not screen.showing_provisional and not app.workers._workers):
            await asyncio.sleep(0.01)
            if time.perf_counter() - start > 600:
                break
        out["coloured_s"] = screen.last_result_at - start
        out["paste_block_ms"] = max(gaps, default=0) * 1000
        out["tokens_shown"] = len(app.ids)
        keys = []
        for ch in "abcde":
            gaps.clear()
            last[0] = time.perf_counter()
            before = screen.last_result_at
            start = time.perf_counter()
            app.post_message(events.Key(ch, ch))
            while screen.last_result_at == before and time.perf_counter() - start < 60:
                await asyncio.sleep(0.005)
            keys.append({"shown_s": screen.last_result_at - start, "block_ms": max(gaps, default=0) * 1000})
            await pilot.pause(0.4)
        out["keys"] = keys
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _child(argv: list[str]) -> int:
    model, path = argv
    print(json.dumps(asyncio.run(_app_run(model, Path(path)))))
    return 0


def main(argv: list[str]) -> int:
    if "-h" in argv or "--help" in argv:
        print(__doc__.splitlines()[0].replace("``", ""))
        print("usage: python -m benchmarks big_input [--sizes 1,10] [GGUF]")
        return 0
    if argv and argv[0] == "--child":
        return _child(argv[1:])
    sizes = [1.0, 10.0]
    if "--sizes" in argv:
        i = argv.index("--sizes")
        sizes = [float(s) for s in argv[i + 1].split(",")]
        argv = argv[:i] + argv[i + 2 :]
    from tui_tok.samples import DEFAULT_SAMPLE

    model = argv[0] if argv else str(DEFAULT_SAMPLE)
    print(f"model {Path(model).name}")
    for mb in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "big.txt"
            path.write_bytes(make_text(mb))
            enc = _encode_times(model, path)
            proc = subprocess.run([sys.executable, "-m", "benchmarks", "big_input", "--child", model, str(path)],
                                  capture_output=True, text=True, cwd=ROOT)  # fmt: skip
            if proc.returncode:
                print(proc.stderr[-3000:], file=sys.stderr)
                return 1
            app = json.loads(proc.stdout.strip().splitlines()[-1])
        keys = app["keys"]
        print(
            f"{mb:g} MB: encode --file {enc['encode_cli_s']:.2f} s (encode call {enc['encode_call_s']:.2f} s, "
            f"{enc['tokens']:,} tokens) · app: count shown {app['count_shown_s']:.2f} s "
            f"({app['count_shown_s'] / enc['encode_cli_s']:.2f}x encode --file; {app['tokens_shown']:,} tokens), "
            f"coloured {app['coloured_s']:.2f} s, "
            f"UI blocked max {app['paste_block_ms']:.0f} ms · later keys shown "
            f"{max(k['shown_s'] for k in keys):.2f} s max, blocked {max(k['block_ms'] for k in keys):.0f} ms max · "
            f"peak RSS {app['peak_rss_mb']:.0f} MB"
        )
    return 0
