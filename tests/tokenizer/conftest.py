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
