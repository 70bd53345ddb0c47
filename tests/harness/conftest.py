"""Fixtures for the harness tests: ``ws``, an empty workspace folder, and ``store``, a real
store at ``store_at`` (closed at teardown). ``store_at`` is a SQLite file in tmp_path; the
store's own tests (tests/harness/store/, the memory tests) override it with
``store_location``, so they run on SQLite and on PostgreSQL (§12). A module whose tests need
files in the workspace overrides ``ws`` with ``make_workspace`` (tests/support/workspace.py)."""

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
def store_at(tmp_path: Path) -> Path | str:
    return tmp_path / "store.db"


@pytest.fixture
def store(store_at: Path | str) -> Iterator[Store]:
    with Store(store_at) as opened:
        yield opened
