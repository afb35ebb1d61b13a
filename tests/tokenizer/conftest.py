"""Prints the per-vocab conformance match rates test_conformance.py records; shares loaded tokenizers."""

from __future__ import annotations

import pytest


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    rates: dict[str, tuple[int, int, str]] = {}
    # the reports carry the figures, also from pytest-xdist workers
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            for key, value in getattr(report, "user_properties", ()):
                if key == "conformance_match_rate":
                    name, ok, total, note = value
                    rates[name] = (ok, total, note)
    if not rates:
        return
    terminalreporter.section("llama.cpp conformance (rows fully matching)")
    for name in sorted(rates):
        ok, total, note = rates[name]
        pct = 100.0 * ok / total if total else 100.0
        terminalreporter.write_line(f"{name:32s} {ok:4d}/{total:<4d} {pct:6.2f}%  {note}")


@pytest.fixture(scope="session")
def load_cached():  # type: ignore[no-untyped-def]
    """``load_cached(path, paths=None)`` -> Tokenizer with those code paths (``core/paths.py``;
    None: the default), loaded once per session (big vocabs take a while; the other modes share
    the first one's vocab)."""
    from tui_tok.loader import load_tokenizer
    from tui_tok.tokenizer.tokenizer import Tokenizer

    cache: dict = {}

    def get(path, paths=None):  # type: ignore[no-untyped-def]
        if (path, paths) not in cache:
            if (path, None) not in cache:
                cache[path, None] = load_tokenizer(path)
            if paths is not None:
                cache[path, paths] = Tokenizer(cache[path, None].vocab, paths=paths)
        return cache[path, paths]

    return get
