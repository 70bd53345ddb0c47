"""Approvals through the editor: ``exec`` is ``ask`` by default, so the server sends
``window/showMessageRequest`` (Allow / Allow for this run / Deny) and the run waits for it."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.e2e.lsp import (
    HarnessClient,
    call,
    turn,
)
from tests.support.fake_llm import FakeLLM
from tests.support.transcript import request_text

PRINT_RAN = [sys.executable, "-c", "print('the command ran')"]


async def test_allow_runs_the_command(client: HarnessClient, fake: FakeLLM) -> None:
    fake.add_turns(turn(call("exec", argv=PRINT_RAN)), {"content": "done"})
    client.approval_answer = "Allow"
    run_id = (await client.command("harness.run", {"goal": "run it"}))["runId"]
    assert (await client.wait_finished(run_id))["outcome"] == "finished"

    (asked,) = client.approvals
    assert [a.title for a in asked.actions or []] == ["Allow", "Allow for this run", "Deny"]
    assert f"Harness run {run_id} wants to exec" in asked.message
    assert "the default for exec" in asked.message
    step = await client.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "exit code: 0" in step["result"]
    assert "the command ran" in step["result"]


async def test_deny_becomes_an_observation(client: HarnessClient, fake: FakeLLM) -> None:
    fake.add_turns(turn(call("exec", argv=PRINT_RAN)), {"content": "done"})
    client.approval_answer = "Deny"
    run_id = (await client.command("harness.run", {"goal": "run it"}))["runId"]
    assert (await client.wait_finished(run_id))["outcome"] == "finished"

    step = await client.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "refused: the user denied exec" in step["result"]
    assert "exit code" not in step["result"], "it never ran"
    second_request = request_text(fake.requests[1])
    assert "refused: the user denied exec" in second_request, "the model is told"


async def test_allow_for_this_run_asks_once(client: HarnessClient, fake: FakeLLM) -> None:
    fake.add_turns(
        turn(call("exec", argv=PRINT_RAN)), turn(call("exec", argv=PRINT_RAN)), {"content": "ok"}
    )
    client.approval_answer = "Allow for this run"
    run_id = (await client.command("harness.run", {"goal": "run it twice"}))["runId"]
    assert (await client.wait_finished(run_id))["outcome"] == "finished"
    assert len(client.approvals) == 1
    step = await client.command("harness.trace.step", {"runId": run_id, "step": 2})
    assert "the command ran" in step["result"]


async def test_a_run_waiting_for_approval_is_cancelled(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    fake.add_turns(turn(call("exec", argv=PRINT_RAN)), {"content": "never asked"})
    client.approval_answer = None  # the user never answers
    run_id = (await client.command("harness.run", {"goal": "run it"}))["runId"]
    await client.wait_for(lambda: client.approvals)

    status = await client.command("harness.status")
    (active,) = status["runs"]
    assert active["runId"] == run_id and active["awaitingApproval"] is True
    assert active["workspace"] == str(ws.resolve())

    assert await client.command("harness.cancel", {"runId": run_id}) == {"cancelled": True}
    finished = await client.wait_finished(run_id)
    assert finished["outcome"] == "cancelled"
    assert finished["steps"] == 1, "the step whose tool was interrupted is recorded"
    await client.wait_for(lambda: client.approvals_withdrawn == 1)  # $/cancelRequest
    assert len(fake.requests) == 1
    assert await client.command("harness.cancel", {"runId": run_id}) == {"cancelled": False}
    trace = await client.command("harness.trace.run", {"runId": run_id})
    assert trace["run"]["outcome"] == "cancelled"
    assert [s["step"] for s in trace["steps"]] == [1]
