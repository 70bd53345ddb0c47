"""The store's tests run on both backends: ``store_at`` (and so ``store``) is each of a
SQLite file and a fresh PostgreSQL database (tests/conftest.py ``store_location``)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def store_at(store_location: Path | str) -> Path | str:
    return store_location
