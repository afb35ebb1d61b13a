"""UI test set-up; helpers to drive the app live in ui_support.py."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
