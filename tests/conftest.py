"""Shared test fixtures: where the real data lives, and a skip when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the repository; skips the test when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent (it lives beside the repository)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """The hand-written fixtures committed under ``tests/fixtures``."""
    return FIXTURES
