"""The background builds (``ui/builds.py``): with a long text each step waits for a pause in
typing (and for the long text's tokenization); with a short one it never waits; the lint calls
its pause hook before each check."""

from __future__ import annotations

import threading
import time

import pytest

from support import ASSETS
from tui_tok import read_gguf
from tui_tok.explore.lint import lint_gguf
from tui_tok.explore.lint.run import CHECKS
from tui_tok.ui import builds
from tui_tok.ui.builds import BackgroundBuilds


class _Host(BackgroundBuilds):
    def __init__(self, text: str) -> None:
        self.text = text
        self.text_idle = threading.Event()
        self.text_idle.set()


def _waited(host: _Host) -> float:
    start = time.monotonic()
    host.wait_quiet()
    return time.monotonic() - start


def test_a_step_waits_for_a_pause_in_typing_only_with_a_long_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builds, "QUIET_S", 0.3)
    long, short = _Host("x" * builds.QUIET_CHARS), _Host("x")
    assert _waited(long) < 0.1  # nobody typed
    long.note_activity()
    short.note_activity()
    assert _waited(long) >= 0.25
    assert _waited(short) < 0.1


def test_a_step_waits_for_the_long_texts_tokenization(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builds, "QUIET_S", 0.0)
    host = _Host("x" * builds.QUIET_CHARS)
    host.text_idle.clear()
    threading.Timer(0.3, host.text_idle.set).start()
    assert _waited(host) >= 0.25


def test_the_lint_pauses_before_each_check() -> None:
    calls: list[int] = []
    report = lint_gguf(read_gguf(ASSETS / "rwkv-world-vocab.gguf"), tokenizer=None, pause=lambda: calls.append(1))
    assert len(calls) == len(CHECKS) and report is not None
