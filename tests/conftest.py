"""Shared fixtures: ``fake_llm`` starts fake model servers (tests/support/fake_llm.py);
``pg_cluster`` a PostgreSQL cluster for the session, ``store_location`` a fresh store on
each backend (tests/support/pg.py). Every test of a module with a module-scoped fixture is
marked ``xdist_group(<module>)``, so ``pytest -n N --dist loadgroup`` keeps that module in
one process (its fixture built once) and spreads every other module's tests."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.store import Store
from tests.support.bytecode import share
from tests.support.fake_llm import FakeLLM
from tests.support.pg import Cluster, start_cluster
from tests.support.pg import unavailable as pg_unavailable

MakeFakeLLM = Callable[..., FakeLLM]
SHARED_SCOPES = ("module", "package")


def pytest_configure(config: pytest.Config) -> None:
    """The controller compiles the project once for every interpreter the tests start
    (``tests/support/bytecode.py``), before xdist starts its workers."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        share(Path(config.rootpath))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Group the tests of a module that shares an expensive fixture (a code-server, a
    Neovim, a sweep) into one process under ``--dist loadgroup``."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info is not None else ()
        if any(d.scope in SHARED_SCOPES for chain in defs for d in chain):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))  # type: ignore[attr-defined]


@pytest.fixture
def fake_llm() -> Iterator[MakeFakeLLM]:
    """A factory: ``fake_llm(turns, wire="openai", **options)`` returns a started ``FakeLLM``;
    every server it started is stopped at teardown."""
    started: list[FakeLLM] = []

    def make(turns: Any = (), **options: Any) -> FakeLLM:
        fake = FakeLLM(list(turns), **options).start()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        fake.stop()


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """One throwaway PostgreSQL cluster for the session (tests/support/pg.py). Skipped, saying
    why, only where PostgreSQL is not installed and we are not root (as root — CI —
    tools/system-deps.sh installs it, so its absence is a failure)."""
    why = pg_unavailable()
    if why is not None:
        if os.geteuid() == 0:
            pytest.fail(why)
        pytest.skip(why)
    cluster = start_cluster()
    yield cluster
    cluster.stop()


def _migrated(url: str) -> None:
    Store(url).close()


@pytest.fixture
def pg_store_url(pg_cluster: Cluster) -> Iterator[str]:
    """A fresh, migrated PostgreSQL store (a clone of a template migrated once), dropped
    after the test (the cluster stays small: it lives in memory)."""
    url = pg_cluster.database(template=pg_cluster.template("harness_migrated", _migrated))
    yield url
    pg_cluster.drop(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a test's store lives, on each backend: a SQLite file in tmp_path, or a fresh
    PostgreSQL database (§12). Tests that open a second ``Store`` on it share the store."""
    if request.param == "sqlite":
        return tmp_path / "store.db"
    url: str = request.getfixturevalue("pg_store_url")
    return url
