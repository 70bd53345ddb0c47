"""An approval waits until it is answered or the run is cancelled (§7): a dismissed
``window/showMessageRequest`` (the client answers null — "Clear All Notifications", a toast
closed) is never taken as a Deny. The server asks again, at most every
``REASK_INTERVAL_S`` seconds, and ``harness.status`` shows the run waiting meanwhile."""

from __future__ import annotations

import json
import sys
import time

from tests.e2e.lsp import HarnessClient, call, turn
from tests.support.fake_llm import FakeLLM

PRINT_RAN = [sys.executable, "-c", "print('the command ran')"]
REASK_INTERVAL_S = 2.0  # server.lsp.approvals.REASK_INTERVAL_S, as the user sees it


async def test_a_dismissed_dialog_is_asked_again_not_denied(
    client: HarnessClient, fake: FakeLLM
) -> None:
    fake.add_turns(turn(call("exec", argv=PRINT_RAN)), {"content": "done"})
    client.answers = [None, None, "Allow"]  # dismissed twice, then answered
    run_id = (await client.command("harness.run", {"goal": "run it"}))["runId"]
    await client.wait_for(lambda: len(client.approvals) >= 2)
    status = await client.command("harness.status")
    (active,) = status["runs"]
    assert active["runId"] == run_id and active["awaitingApproval"] is True

    assert (await client.wait_finished(run_id))["outcome"] == "finished"
    assert len(client.approvals) == 3, "asked again after each dismissal"
    assert all(a.message == client.approvals[0].message for a in client.approvals)
    step = await client.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "the command ran" in step["result"]
    assert "denied" not in step["result"]


async def test_a_dismissed_dialog_comes_back_no_sooner_than_the_interval(
    client: HarnessClient, fake: FakeLLM
) -> None:
    fake.add_turns(turn(call("exec", argv=PRINT_RAN)), {"content": "done"})
    client.answers = [None]
    client.approval_answer = "Deny"
    seen: list[float] = []

    def asked() -> bool:
        while len(seen) < len(client.approvals):
            seen.append(time.monotonic())
        return len(seen) >= 2

    run_id = (await client.command("harness.run", {"goal": "run it"}))["runId"]
    await client.wait_for(asked)
    gap = seen[1] - seen[0]
    assert gap >= REASK_INTERVAL_S - 0.3, "a client that dismisses at once is not flooded"
    await client.wait_finished(run_id)
    step = await client.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "refused: the user denied exec" in step["result"], "the answer given is the one taken"


async def test_cancel_ends_a_dismissed_approval_without_a_deny(
    client: HarnessClient, fake: FakeLLM
) -> None:
    fake.add_turns(turn(call("exec", argv=PRINT_RAN)), {"content": "never asked"})
    client.answers = [None]
    client.approval_answer = None  # after the dismissal, the user never answers
    run_id = (await client.command("harness.run", {"goal": "run it"}))["runId"]
    await client.wait_for(lambda: len(client.approvals) >= 2)
    (active,) = (await client.command("harness.status"))["runs"]
    assert active["awaitingApproval"] is True
    trace = await client.command("harness.trace.run", {"runId": run_id})
    assert trace["steps"] == [], "the step does not complete while the approval waits"
    assert len(fake.requests) == 1

    assert await client.command("harness.cancel", {"runId": run_id}) == {"cancelled": True}
    finished = await client.wait_finished(run_id)
    assert finished["outcome"] == "cancelled"
    await client.wait_for(lambda: client.approvals_withdrawn == 1)
    trace = await client.command("harness.trace.run", {"runId": run_id})
    assert "denied" not in json.dumps(trace), "no denial is recorded as the user's"
    step = await client.command("harness.trace.step", {"runId": run_id, "step": 1})
    assert "denied" not in json.dumps(step)
    assert len(fake.requests) == 1, "the model never hears of a deny"
