"""Prints the per-vocab conformance match rates that test_conformance.py collected."""

from __future__ import annotations

import sys


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    rates: dict[str, tuple[int, int, str]] = {}
    for module in list(sys.modules.values()):
        found = getattr(module, "CONFORMANCE_MATCH_RATES", None)
        if isinstance(found, dict):
            rates.update(found)
    if not rates:
        return
    terminalreporter.section("llama.cpp conformance (rows fully matching)")
    for name in sorted(rates):
        ok, total, note = rates[name]
        pct = 100.0 * ok / total if total else 100.0
        terminalreporter.write_line(f"{name:32s} {ok:4d}/{total:<4d} {pct:6.2f}%  {note}")


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def load_cached():  # type: ignore[no-untyped-def]
    """``load_cached(path)`` -> Tokenizer, loaded once per session (big vocabs take a while)."""
    from tui_tok.loader import load_tokenizer

    cache: dict = {}

    def get(path):  # type: ignore[no-untyped-def]
        if path not in cache:
            cache[path] = load_tokenizer(path)
        return cache[path]

    return get
