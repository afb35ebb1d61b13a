"""The session lock (``ui/session.py``) is held wherever the explorer reaches into the encoder's
internals: the Explain view's worker and its "Why not?" box call ``tokenizer.explain`` under it,
so they never run beside a Tokenize worker on the same encoder."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.widgets import Input, Static
from ui_support import make_app, settle

import tui_tok.ui.screens.explain as explain_screen
from support import vocab_file
from tui_tok.tokenizer.explain import explain
from tui_tok.ui.screens.explain import ExplainScreen
from tui_tok.ui.widgets.token_view import TokenView


class OwnedLock:
    """A lock that knows which thread holds it (``threading.Lock`` does not)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.owner: int | None = None

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        got = self._lock.acquire(blocking, timeout)
        if got:
            self.owner = threading.get_ident()
        return got

    def release(self) -> None:
        self.owner = None
        self._lock.release()

    def locked(self) -> bool:
        return self._lock.locked()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def held_here(self) -> bool:
        return self.owner == threading.get_ident()


async def test_explain_and_why_not_hold_the_session_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(vocab_file("qwen3-vocab").path, text="Hello tokenization")
    lock = OwnedLock()
    app.session.lock = lock  # type: ignore[assignment]
    held: dict[str, bool] = {}

    def spy(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            held[name] = lock.held_here()
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(explain_screen, "explain", spy("explain", explain_screen.explain))
    monkeypatch.setattr(explain_screen, "why_not", spy("why_not", explain_screen.why_not))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#tok-view", TokenView).focus()
        await pilot.press("home", "right", "f8")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ExplainScreen) and screen.chunk is not None
        assert held == {"explain": True}
        await pilot.press("w")
        screen.query_one("#ex-why", Input).value = "Ġtoken|ization"
        await pilot.press("enter")
        await settle(app, pilot)
        assert held == {"explain": True, "why_not": True}
        assert str(screen.query_one("#ex-answer", Static).render())


async def test_explain_waits_for_a_tokenize_run_then_is_right() -> None:
    """While another thread holds the lock (a Tokenize worker on a long text), the Explain view's
    worker waits; released, it explains the text exactly as a lone call does."""
    text = "Hello tokenization, 日本 🙂"
    app = make_app(vocab_file("qwen3-vocab").path, text=text)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        tok = app.tokenizer
        assert tok is not None
        app.screen.query_one("#tok-view", TokenView).focus()
        expected = explain(tok, text, parse_special=False, focus=0)
        ids: list[int] = []
        started, release = threading.Event(), threading.Event()

        def tokenize_run() -> None:
            with app.session.lock:
                started.set()
                release.wait(10)
                ids.extend(tok.encode(text * 50, add_special=False))

        runner = threading.Thread(target=tokenize_run)
        runner.start()
        assert started.wait(10)
        await pilot.press("home", "f8")
        for _ in range(5):
            await pilot.pause(0.05)
        screen = app.screen
        assert isinstance(screen, ExplainScreen)
        assert screen.explanation is None, "explained while another thread held the session lock"
        release.set()
        runner.join(10)
        await settle(app, pilot)
        assert screen.explanation is not None
        assert screen.explanation.fragments == expected.fragments
        assert ids == tok.encode(text * 50, add_special=False)
