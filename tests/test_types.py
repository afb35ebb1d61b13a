"""The package type-checks: ``mypy --ignore-missing-imports tui_tok`` finds nothing.

Keeps the annotations honest (a wrong one misleads a reader more than none). Runs mypy in
this process through its API, with a fresh cache in a temporary directory so that nothing
is written into the repository (a cold run takes ~10 s here).
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_package_type_checks(tmp_path_factory: pytest.TempPathFactory) -> None:
    try:
        from mypy import api
    except ImportError:
        pytest.skip("mypy not installed (pip install -e '.[test]')")
    cache = tmp_path_factory.mktemp("mypy_cache")
    # mypy raises the collector's thresholds and the recursion limit for good; later tests in
    # this process (the UI's garbage-collection pacing) must see the interpreter's own
    thresholds, recursion_limit = gc.get_threshold(), sys.getrecursionlimit()
    try:
        stdout, stderr, status = api.run(["--ignore-missing-imports", "--cache-dir", str(cache), str(ROOT / "tui_tok")])
    finally:
        gc.set_threshold(*thresholds)
        sys.setrecursionlimit(recursion_limit)
    assert status == 0, f"mypy exited {status}:\n{stdout}{stderr}"
