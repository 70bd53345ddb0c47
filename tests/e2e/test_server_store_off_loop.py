"""The server never waits on the store (issue 30, finding 13: "with 1M runs
``harness.conversations`` took 1.7–5.2 s …; a ``harness.status`` (and approvals, progress,
Stop) waited behind them").

A real SQLite store with many runs (one conversation each), built with one ``INSERT …
SELECT`` over a recursive CTE, so listing every conversation takes a while; Stop
(``harness.cancel``) sent just after it is answered first — the store read runs in a worker
thread, not on the event loop."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

from harness.store import Store
from tests.e2e.lsp import HarnessClient

RUNS = 100_000
STATUSES = 6


@pytest.fixture(name="store")
def big_store(tmp_path: Path) -> Path:
    path = tmp_path / "store" / "harness.db"
    path.parent.mkdir()
    Store(path).close()  # created and migrated by the product
    with sqlite3.connect(path) as conn:
        conn.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
            " INSERT INTO runs (id, goal, workspace, provider, model, contract, outcome,"
            " spent_tokens, started_at, finished_at, conversation_id, turn)"
            " SELECT i, 'goal ' || i, '/elsewhere/' || (i % 97), 'scripted', 'm', '{}', 'success',"
            " i, '2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z', i, 1 FROM n",
            (RUNS,),
        )
    return path


async def test_stop_is_answered_while_a_slow_store_read_runs(client: HarnessClient) -> None:
    async def timed(name: str, *args: object) -> float:
        await client.command(name, *args)
        return time.monotonic()

    # Sent in this order on the one stream: the listing first, Stop just after it.
    listed, stopped = await asyncio.gather(
        timed("harness.conversations", {"workspaceFolder": "*", "limit": 10_000}),
        timed("harness.cancel", {"runId": 1}),
    )
    assert stopped < listed, "Stop waited behind the store read"


async def test_statuses_are_answered_while_a_slow_store_read_runs(client: HarnessClient) -> None:
    """Both are store reads in worker threads. With one connection under one lock every
    status waited for the listing (at most the first slipped in before it); each thread
    reads through its own connection now, so status after status is answered while the
    listing is still being read. The responses arrive in the order the server sends them,
    so a listing answered first would be done before the statuses' answers are seen."""
    await client.command("harness.status")  # the harness loaded, the store open
    listing = asyncio.ensure_future(
        client.command("harness.conversations", {"workspaceFolder": "*", "limit": 10_000})
    )
    await asyncio.sleep(0)  # let the listing go out first on the stream
    for _ in range(STATUSES):
        status = await client.command("harness.status")
        assert "storePath" in status
    assert not listing.done(), "a status waited for the store read"
    assert len(await listing) == 10_000


EVENTS = 5_000


async def test_a_long_runs_events_come_a_page_at_a_time(client: HarnessClient, store: Path) -> None:
    """``harness.run.events`` of a run is paged by default: a long run's events are never one
    answer of tens of MB (issue 30 measured 45 MB); ``next`` walks them all."""
    with sqlite3.connect(store) as conn:
        conn.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
            " INSERT INTO run_events (run_id, step, seq, kind, detail, created_at)"
            " SELECT 7, 1, i, 'text', json_object('seq', i, 'kind', 'text', 'runId', 7,"
            " 'step', 1, 'delta', 'word ' || i), '2026-01-01T00:00:00Z' FROM n",
            (EVENTS,),
        )
    first = await client.command(
        "harness.run.events", {"runId": 7, "workspaceFolder": "/elsewhere/7"}
    )
    assert len(first["events"]) == 1_000 and first["next"] == 1_000
    seen, after = first["events"], first["next"]
    while after is not None:
        page = await client.command(
            "harness.run.events", {"runId": 7, "after": after, "workspaceFolder": "/elsewhere/7"}
        )
        seen, after = seen + page["events"], page["next"]
    assert [e["seq"] for e in seen] == list(range(1, EVENTS + 1))


async def test_conversations_come_a_page_at_a_time(client: HarnessClient) -> None:
    """``harness.conversations`` pages: ``before`` = the last row's ``lastRunId`` gives the
    next ``limit``, newest first, none twice, none missed."""
    pages, before = [], None
    for _ in range(3):
        asked: dict[str, object] = {"workspaceFolder": "*", "limit": 50}
        if before is not None:
            asked["before"] = before
        page = await client.command("harness.conversations", asked)
        pages += [row["conversationId"] for row in page]
        before = page[-1]["lastRunId"]
    assert pages == list(range(RUNS, RUNS - 150, -1))
