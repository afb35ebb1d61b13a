"""A long ``--text`` (issue 30): the explorer opens on it from its loading screen, the exact count
comes from the tokenize worker (outside BPE before the colours: from the ids alone), which also
wraps the text for the Tokens panel, the index
and lint builds wait for it, and a key typed afterwards is spliced: its count exact, the Tokens
panel's rows re-wrapped only around it and the id strip's labels measured only where it changed,
both equal to a fresh wrap. The speed itself is ``python -m benchmarks big_text``'s (a real
terminal, 10 MB); here the text is just over the size that is only tokenized in workers."""

from __future__ import annotations

import asyncio
import time

import numpy as np
import pytest

from support import ASSETS
from tui_tok import read_gguf
from tui_tok.loader import load_tokenizer
from tui_tok.ui.app import Opened, Opening, TuiTokApp
from tui_tok.ui.screens import tokenize
from tui_tok.ui.screens.tokenize import WORKER_ONLY_CHARS, TokenizeScreen
from tui_tok.ui.widgets import id_strip, token_view
from tui_tok.ui.widgets.editor import Editor
from tui_tok.ui.widgets.id_strip import IdStrip, strip_flow
from tui_tok.ui.widgets.readout import Readout
from tui_tok.ui.widgets.token_view import TokenView

BLOCK = (
    "The quick brown fox jumps over the lazy dog. Tokenizers split text into pieces.\n"
    "def f(x):\n\treturn x ** 2  # squares\n"
    "日本語のテキストも少し混ぜる。 Numbers 12345 and 67.89 \u200d🙂\n\n"
)
TEXT = BLOCK * (WORKER_ONLY_CHARS * 3 // 2 // len(BLOCK))


async def _until(app: TuiTokApp, done, timeout: float = 180) -> None:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    while not done():
        await asyncio.sleep(0.02)
        assert time.perf_counter() - start < timeout, "timed out"


def _idle(app: TuiTokApp) -> bool:
    screen = app.screen
    return (
        isinstance(screen, TokenizeScreen) and screen.last_result_at > 0 and not screen.showing_provisional
        and app.workers._workers == set() and app.lint_report is not None
    )  # fmt: skip


@pytest.mark.parametrize(
    "name", ["qwen3-vocab.gguf", "ggml-vocab-bert-bge.gguf", "rwkv-world-vocab.gguf", "ggml-vocab-phi-3.gguf"]
)
async def test_long_text_counts_then_a_key_is_spliced_exactly(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = ASSETS / name
    tok = load_tokenizer(path)
    order: list[str] = []
    counted = TokenizeScreen.on_tokenize_screen_counted
    monkeypatch.setattr(
        TokenizeScreen, "on_tokenize_screen_counted", lambda self, m: (order.append("count"), counted(self, m))[1]
    )
    built = TuiTokApp.on_vocab_index_built
    monkeypatch.setattr(TuiTokApp, "on_vocab_index_built", lambda self, m: (order.append("index"), built(self, m))[1])
    wraps: list[int] = []  # wraps on the UI thread (the worker's are tokenize_draw's)
    wrap = token_view.wrap_rows
    monkeypatch.setattr(
        token_view, "wrap_rows", lambda lay, width: (wraps.append(lay.n_lines), wrap(lay, width=width))[1]
    )
    app = TuiTokApp(opening=Opening(name, lambda progress: Opened(read_gguf(path), TEXT)))
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(app, lambda: _idle(app))
        screen = app.screen
        assert isinstance(screen, TokenizeScreen)
        want = tok.encode(TEXT)
        assert list(app.ids) == want
        assert order == ["count", "index"]  # the count came from the worker, and the index waited for it
        assert 0 < screen.count_shown_at <= screen.last_result_at
        assert f"{len(want):,} tokens" in str(screen.query_one("#tok-stats", Readout).render())

        assert max(wraps) == 1  # the worker wrapped the text's lines (the UI thread only the empty view's one)
        widths: list[int] = []
        measure = id_strip.label_widths
        monkeypatch.setattr(
            id_strip, "label_widths", lambda ids, pieces: (widths.append(len(ids)), measure(ids, pieces))[1]
        )
        editor = screen.query_one("#tok-input", Editor)
        spliced = screen.spliced_shown
        for location, key in (((5, 3), "x"), ((9, 0), "enter")):
            editor.move_cursor(location)
            since = time.perf_counter()
            await pilot.press(key)
            await _until(app, lambda since=since: screen.last_result_at > since and _idle(app))
            assert list(app.ids) == tok.encode(editor.text)
        assert screen.spliced_shown == spliced + 2
        assert max(wraps) == 1 and max(widths) < 100  # only the lines and labels around each key

        view = screen.query_one("#tok-view", TokenView)
        fresh = wrap(view.token_layout, width=view.rows.width)
        assert view.rows.row_starts.tolist() == fresh.row_starts.tolist()
        assert {k: v.tolist() for k, v in view.rows.breaks.items()} == {k: v.tolist() for k, v in fresh.breaks.items()}
        strip = screen.query_one("#tok-ids", IdStrip)
        got = strip._flowed
        assert got is not None
        flow = strip_flow(view.token_layout.ids, None, got[2], None)
        assert np.array_equal(got[0], flow[0]) and np.array_equal(got[1], flow[1])
    assert tokenize.WORKER_ONLY_CHARS < len(TEXT)


def test_progress_is_shown_at_most_every_so_often() -> None:
    """A long text's progress messages are throttled (each woke the UI thread to draw)."""
    from tui_tok.ui.screens.tokenize_draw import every as _every

    heard: list[float] = []
    never = _every(3600.0, heard.append)
    for f in (0.1, 0.5, 0.9):
        never(f)
    assert heard == []
    always = _every(0.0, heard.append)
    for f in (0.1, 0.5, 0.9):
        always(f)
    assert heard == [0.1, 0.5, 0.9]
