"""Prints the per-vocab conformance match rates test_conformance.py records; shares loaded tokenizers."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections import OrderedDict

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


_MODES_KEPT = 4
"""Tokenizers in another paths mode kept at once: all 26 vocabularies in three modes, each with its
own tables, took a test worker to 5 GB (and with the UI tests after them, 10 GB: killed)."""


@pytest.fixture(scope="package")
def load_cached():  # type: ignore[no-untyped-def]
    """``load_cached(path, paths=None)`` -> Tokenizer with those code paths (``core/paths.py``;
    None: the default), loaded once per package (big vocabs take a while; the other modes share
    the first one's vocab)."""
    from tui_tok.loader import load_tokenizer
    from tui_tok.tokenizer.tokenizer import Tokenizer

    cache: dict = {}
    modes: OrderedDict = OrderedDict()  # the few most recent (path, paths): each holds its own tables

    def get(path, paths=None):  # type: ignore[no-untyped-def]
        if (path, None) not in cache:
            cache[path, None] = load_tokenizer(path)
        if paths is None:
            return cache[path, None]
        key = (path, paths)
        if key not in modes:
            modes[key] = Tokenizer(cache[path, None].vocab, paths=paths)
            while len(modes) > _MODES_KEPT:
                modes.popitem(last=False)
        modes.move_to_end(key)
        return modes[key]

    yield get
    # the tests after this package (explore, ui, cli) run in the same worker: give the tokenizers'
    # tables back (26 vocabularies, several GB with the other modes' tables and the references')
    cache.clear()
    modes.clear()
    gc.collect()
    _trim_heap()


def _trim_heap() -> None:
    """glibc's ``malloc_trim(0)``: return freed heap pages to the system (elsewhere: nothing)."""
    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
