"""The server's life around runs: cancelling from the progress UI, a client without progress
support, several workspace folders, shutdown during a run, and a client that disappears
mid-run (the store keeps whole steps)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from pathlib import Path

from lsprotocol import types

from tests.e2e.lsp import (
    SERVER_COMMAND,
    HarnessClient,
    busy_turns,
    call,
    client_factory,
    close,
    held,
    initialize_params,
    server_env,
    settings,
    turn,
)
from tests.support.fake_llm import FakeLLM


async def test_the_progress_cancel_button_cancels_the_run(
    client: HarnessClient, fake: FakeLLM
) -> None:
    fake.delay_s = 0.05
    fake.add_turns(*busy_turns(100))
    run_id = (await client.command("harness.run", {"goal": "many steps", "maxSteps": 100}))["runId"]
    await client.wait_for(lambda: len(client.budgets) >= 2)
    (token,) = client.progress_reports
    status = await client.command("harness.status")
    assert status["runs"][0]["progressToken"] == token
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))

    finished = await client.wait_finished(run_id)
    assert finished["outcome"] == "cancelled"
    assert finished["steps"] < 100
    assert isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd)
    trace = await client.command("harness.trace.run", {"runId": run_id})
    assert len(trace["steps"]) == finished["steps"]


async def test_a_client_without_progress_support_gets_none(
    bare: HarnessClient, fake: FakeLLM, ws: Path, store: Path
) -> None:
    params = initialize_params([ws], settings(fake, store))
    params.capabilities = types.ClientCapabilities()
    await bare.initialize_session(params)
    fake.add_turns(turn(call("read_file", path="src/a.py")), {"content": "done"})
    run_id = (await bare.command("harness.run", {"goal": "read"}))["runId"]
    assert (await bare.wait_finished(run_id))["outcome"] == "finished"
    assert bare.progress_reports == {}
    assert len(bare.budgets) == 2


async def test_one_run_per_folder_and_workspace_folder_picks_one(
    bare: HarnessClient, fake: FakeLLM, tmp_path: Path, store: Path
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for root in (one, two):
        root.mkdir()
        (root / "name.txt").write_text(root.name)
    await bare.initialize_session(initialize_params([one, two], settings(fake, store)))

    release = threading.Event()

    slow = held(release, turn(call("read_file", path="name.txt")))
    fake.add_turns(slow, slow, {"content": "done"}, {"content": "done"})
    first = (await bare.command("harness.run", {"goal": "in one"}))["runId"]
    second = (
        await bare.command("harness.run", {"goal": "in two", "workspaceFolder": two.as_uri()})
    )["runId"]
    status = await bare.command("harness.status", {"workspaceFolder": str(two)})
    assert {r["runId"]: r["workspace"] for r in status["runs"]} == {
        first: str(one.resolve()),
        second: str(two.resolve()),
    }
    assert status["memory"]["workspace"]["entries"] == 0
    assert status["memory"]["workspace"]["maxEntries"] == 64
    release.set()
    await bare.wait_finished(first)
    await bare.wait_finished(second)
    runs = {r["runId"]: r["workspace"] for r in await bare.command("harness.trace.runs")}
    assert runs == {first: str(one.resolve()), second: str(two.resolve())}


async def test_shutdown_during_a_run_records_it_cancelled(
    bare: HarnessClient, fake: FakeLLM, ws: Path, store: Path
) -> None:
    await bare.initialize_session(initialize_params([ws], settings(fake, store)))
    fake.delay_s = 0.05
    fake.add_turns(*busy_turns(100))
    run_id = (await bare.command("harness.run", {"goal": "long", "maxSteps": 100}))["runId"]
    await bare.wait_for(lambda: len(bare.budgets) >= 2)
    await bare.shutdown_session()
    assert bare._server is not None and bare._server.returncode == 0
    assert [f["runId"] for f in bare.finished] == [run_id]
    assert bare.finished[0]["outcome"] == "cancelled"
    assert_whole_steps(store, run_id, outcome="cancelled")


def assert_whole_steps(store: Path, run_id: int, *, outcome: str) -> int:
    conn = sqlite3.connect(store)
    try:
        rows = conn.execute(
            "SELECT step, tool_calls FROM steps WHERE run_id = ? ORDER BY step", (run_id,)
        ).fetchall()
        assert rows, "some steps were recorded"
        assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
        for step, calls in rows:
            observations = conn.execute(
                "SELECT count(*) FROM observations WHERE run_id = ? AND step = ?", (run_id, step)
            ).fetchone()[0]
            edits = conn.execute(
                "SELECT count(*) FROM edits WHERE run_id = ? AND step = ?", (run_id, step)
            ).fetchone()[0]
            assert observations == len(json.loads(calls)) == 3
            assert edits == 1
        recorded, finished = conn.execute(
            "SELECT steps, outcome FROM runs WHERE id = ?", (run_id,)
        ).fetchone()
        assert recorded == len(rows)
        assert finished == outcome
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return len(rows)
    finally:
        conn.close()


async def test_a_client_that_disconnects_mid_run_leaves_whole_steps(
    fake: FakeLLM, ws: Path, store: Path
) -> None:
    client = client_factory()
    await client.start_io(*SERVER_COMMAND, env=server_env())
    server = client._server
    assert server is not None and server.stdin is not None
    try:
        await client.initialize_session(initialize_params([ws], settings(fake, store)))
        fake.delay_s = 0.02
        fake.add_turns(*busy_turns(200))
        run_id = (await client.command("harness.run", {"goal": "long", "maxSteps": 200}))["runId"]
        await client.wait_for(lambda: len(client.budgets) >= 5)
        server.stdin.close()  # the editor is gone: no shutdown, no exit
        assert await asyncio.wait_for(server.wait(), 20) == 0
    finally:
        if server.returncode is None:
            server.kill()
        await close(client)
        await client.stop()
    steps = assert_whole_steps(store, run_id, outcome="cancelled")
    assert steps >= 5
