"""Fixtures for the harness tests: ``ws``, an empty workspace folder, and ``store``, a real
SQLite store in tmp_path (closed at teardown). A module whose tests need files in the
workspace overrides ``ws`` with ``make_workspace`` (tests/support/workspace.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.store import Store
from tests.support.workspace import make_workspace


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "store.db") as opened:
        yield opened
