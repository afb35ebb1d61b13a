"""Shared pytest set-up: report whether ../shared is in use."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import HAVE_SHARED, SHARED, SHARED_MISSING


def pytest_report_header(config) -> str:  # type: ignore[no-untyped-def]
    return f"tui-tok shared data: {SHARED}" if HAVE_SHARED else f"tui-tok: {SHARED_MISSING}"


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    """Say it again at the end, where ``-q`` (the README's command) shows it: the header is hidden."""
    if not HAVE_SHARED:
        terminalreporter.write_line(f"tui-tok: {SHARED_MISSING}", yellow=True, bold=True)
