"""The code passes the linter and the formatter: ``ruff check`` finds nothing and ``ruff format``
changes nothing in ``tui_tok tests benchmarks tools``.

The rules are in pyproject.toml (``[tool.ruff.lint]``: pycodestyle, pyflakes, bugbear,
pyupgrade, import order, unused noqa markers, each exception there with its reason). Run here so that CI, which runs ``pytest``,
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


def test_ruff_format_changes_nothing() -> None:
    """The tree is as ``ruff format tui_tok tests benchmarks tools`` writes it ([tool.ruff.format];
    ``# fmt: skip`` keeps a statement wrapped by hand)."""
    try:
        import ruff  # noqa: F401 - only whether it is installed
    except ImportError:
        pytest.skip("ruff not installed (pip install -e '.[test]')")
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "tui_tok", "tests", "benchmarks", "tools"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"ruff format would change:\n{done.stdout}{done.stderr}"
