"""Run ``tui-tok`` in-process from the source tests (as tests/cli/cli_support.py does there)."""

from __future__ import annotations

import pytest

from tui_tok.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``main(argv)`` -> (exit code, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
