"""A language server the harness started is stopped once unused for ``[semantic]
idleMinutes`` (issue 32: they lived until the front shut down), and started again by the
next query — which is no failure. Awaited on the back end's own report, not a sleep."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.semantic import Query
from harness.semantic.config import DEFAULT_IDLE_MINUTES, parse_semantic
from harness.semantic.model import Position, SemanticUnavailable
from langservers import HeadlessSemantics
from tests.semantic.conftest import fake_server

IDLE_S = 0.3
WAIT_S = 30.0


def references(path: Path) -> Query:
    return Query("references", path.name, path.read_text(), Position(0, 1))


async def test_an_idle_server_is_stopped_and_started_again_when_asked(tmp_path: Path) -> None:
    source = tmp_path / "a.fake"
    source.write_text("thing here\n")
    stopped: asyncio.Queue[str] = asyncio.Queue()
    config = dataclasses.replace(fake_server("outside"), idle_s=IDLE_S)
    port = HeadlessSemantics(tmp_path, config, on_idle_stop=stopped.put_nowait)
    try:
        first = await port.answer(references(source))
        assert [loc.path for loc in first.locations] == ["a.fake"]
        process = port._running["fake"].client._server
        assert process is not None and process.returncode is None
        assert port.servers() != ()

        assert await asyncio.wait_for(stopped.get(), WAIT_S) == "fake"
        assert port.servers() == (), "no longer listed (harness.status)"
        assert process.returncode is not None, "the process is gone"

        again = await port.answer(references(source))  # started again: no failure counted
        assert [loc.path for loc in again.locations] == ["a.fake"]
        assert port._failures == {}
        assert port._running["fake"].client._server is not process
    finally:
        await port.close()


async def test_a_server_in_use_is_not_stopped(tmp_path: Path) -> None:
    """The idle clock runs only between queries: a query longer than the idle time that
    follows a quick one is not cut short by the quick one's clock."""
    source = tmp_path / "a.fake"
    source.write_text("thing here\n")
    stopped: list[str] = []
    # The timeout also bounds the server's start, so it leaves room for a loaded machine.
    idle = 1.0
    config = dataclasses.replace(fake_server("hang", timeout_ms=int(idle * 6000)), idle_s=idle)
    port = HeadlessSemantics(tmp_path, config, on_idle_stop=stopped.append)
    try:
        await port.answer(Query("symbols", source.name, source.read_text()))  # the clock starts
        with pytest.raises(SemanticUnavailable, match="did not answer within"):
            await port.answer(references(source))  # hangs for 6x the idle time, then fails
        assert stopped == [], "not stopped for idleness while a query was in flight"
    finally:
        await port.close()


def test_idle_minutes_is_read_from_the_user_config() -> None:
    assert parse_semantic({}, "t").idle_s == DEFAULT_IDLE_MINUTES * 60
    assert parse_semantic({"semantic": {"idleMinutes": 2}}, "t").idle_s == 120
    with pytest.raises(ConfigError, match="idleMinutes"):
        parse_semantic({"semantic": {"idleMinutes": 0}}, "t")
