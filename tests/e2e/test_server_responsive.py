"""Nothing a run does blocks the server (§7, issue 11 seen 1 and 3, the server's side):
while a run greps a pathological regex, reads a FIFO, or hears an answer that never ends,
every ``harness.status`` and ``harness.cancel`` is answered and the run stops when asked;
cancelled FIFO reads do not starve the runs that follow, and the server still exits on
``exit``. Structure is asserted (every call answered, what follows completes), never a
duration: the latencies are measured in tests/bench/test_bench_server.py."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from tests.e2e.lsp import WAIT_S, HarnessClient, call, turn
from tests.support.fake_llm import FakeLLM, Fault

CALLS_DURING = 40


async def answered_during(client: HarnessClient, run_id: int, n: int = CALLS_DURING) -> int:
    """``n`` status calls, each answered, while the run ``run_id`` stays in progress."""
    answered = 0
    for _ in range(n):
        status = await asyncio.wait_for(client.command("harness.status"), WAIT_S)
        assert [r["runId"] for r in status["runs"]] == [run_id], "the run is still going"
        answered += 1
    return answered


async def cancel(client: HarnessClient, run_id: int) -> dict[str, Any]:
    assert (await client.command("harness.cancel", {"runId": run_id})) == {"cancelled": True}
    return await client.wait_finished(run_id)


async def test_a_pathological_regex_does_not_freeze_the_server(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    # Seen: with `(a+)+$` over 28 `a`s, harness.status and harness.cancel waited 28 s.
    (ws / "big.txt").write_text("a" * 200_000 + "b\n")
    fake.add_turns(*[turn(call("grep", pattern="(a+)+$")) for _ in range(200)])
    run_id = (await client.command("harness.run", {"goal": "grep", "maxSteps": 200}))["runId"]
    await client.wait_for(lambda: client.budgets)
    assert await answered_during(client, run_id) == CALLS_DURING
    finished = await cancel(client, run_id)
    assert finished["outcome"] == "cancelled"
    step = await client.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "[grep (a+)+$]" in step["result"]


async def test_a_command_reading_a_fifo_does_not_freeze_the_server(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    os.mkfifo(ws / "pipe")
    fake.add_turns(
        turn(call("read_file", path="pipe"), call("grep", pattern="x", path="pipe")),
        turn(call("exec", argv=["cat", "pipe"])),
    )
    run_id = (await client.command("harness.run", {"goal": "read the pipe"}))["runId"]
    await client.wait_for(lambda: any("cat pipe" in str(m) for m in progress_messages(client)))
    assert await answered_during(client, run_id) == CALLS_DURING
    assert (await cancel(client, run_id))["outcome"] == "cancelled"
    step = await client.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "FIFO" in step["result"], "the read was refused at once, not blocked"


async def test_an_endless_answer_does_not_freeze_the_server(
    client: HarnessClient, fake: FakeLLM
) -> None:
    fake.inject(Fault.endless("mixed"))  # one attempt: malformed is not retried
    run_id = (await client.command("harness.run", {"goal": "talk"}))["runId"]
    answered = 0
    while not client.finished:
        status = await asyncio.wait_for(client.command("harness.status"), WAIT_S)
        answered += 1
        if not status["runs"]:
            break
    finished = await client.wait_finished(run_id)
    assert finished["outcome"] == "provider_error", "over 4 MB: malformed, not endless"
    assert answered >= 1
    fake.add_turns({"content": "done"})
    after = (await client.command("harness.run", {"goal": "again"}))["runId"]
    assert (await client.wait_finished(after))["outcome"] == "finished"


async def test_cancelled_fifo_reads_do_not_starve_later_runs_and_exit_still_exits(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    # Seen: 8 cancelled pipe reads starved later runs, and the server did not exit on exit.
    os.mkfifo(ws / "pipe")
    for i in range(8):
        fake.add_turns(turn(call("read_file", path="pipe"), call("exec", argv=["cat", "pipe"])))
        run_id = (await client.command("harness.run", {"goal": f"pipe {i}"}))["runId"]
        await client.wait_for(lambda n=i + 1: exec_reports(client) >= n)
        assert (await cancel(client, run_id))["outcome"] == "cancelled"
    for i in range(3):
        fake.add_turns(turn(call("read_file", path="src/a.py")), {"content": f"done {i}"})
        run_id = (await client.command("harness.run", {"goal": f"after {i}"}))["runId"]
        assert (await client.wait_finished(run_id))["outcome"] == "finished"
    fake.add_turns(turn(call("exec", argv=["cat", "pipe"])))
    last = (await client.command("harness.run", {"goal": "blocked at exit"}))["runId"]
    await client.wait_for(lambda: exec_reports(client) >= 9)
    await asyncio.wait_for(client.shutdown_session(), WAIT_S)
    server = client._server
    assert server is not None and server.returncode == 0
    assert [f["outcome"] for f in client.finished if f["runId"] == last] == ["cancelled"]


def progress_messages(client: HarnessClient) -> list[str]:
    return [
        str(getattr(v, "message", "") or "")
        for values in client.progress_reports.values()
        for v in values
    ]


def exec_reports(client: HarnessClient) -> int:
    return sum("exec cat pipe" in m for m in progress_messages(client))
