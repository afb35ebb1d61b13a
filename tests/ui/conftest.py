"""UI test set-up; helpers to drive the app live in ui_support.py."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _own_settings_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app remembers its theme under $XDG_CONFIG_HOME: never the user's own, and a fresh one per test."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))


_TESTS_PER_COLLECTION = 8
_ran = [0]


@pytest.fixture(autouse=True)
def _unfreeze_the_heap() -> Iterator[None]:
    """The app freezes what is alive once its views are built (``ui.builds.freeze_heap``: the collector
    then skips it); the apps of finished tests go back to the collector every few tests (a full
    collection after every test made the UI tests half again as slow), and what survives is
    frozen again. Without this, every app of the run stayed in memory (a worker reached 12 GB)."""
    yield
    _ran[0] += 1
    if _ran[0] % _TESTS_PER_COLLECTION == 0:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
