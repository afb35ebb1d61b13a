"""The code passes the linter: ``ruff check tui_tok tests benchmarks tools`` finds nothing.

The rules are in pyproject.toml (``[tool.ruff.lint]``: pycodestyle, pyflakes, bugbear,
pyupgrade, each exception there with its reason). Run here so that CI, which runs ``pytest``,
runs it too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_finds_nothing() -> None:
    try:
        import ruff  # noqa: F401 - only whether it is installed
    except ImportError:
        pytest.skip("ruff not installed (pip install -e '.[test]')")
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
         "tui_tok", "tests", "benchmarks", "tools"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, f"ruff check found:\n{done.stdout}{done.stderr}"
