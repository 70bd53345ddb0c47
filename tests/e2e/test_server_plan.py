"""Plan mode through the real server (issue 33): a ``mode: "plan"`` run is offered only the
tools that read; the model's write, exec and rename calls are refused by the harness (the
files untouched, the events say ``refused``); the run ends with the model's plan; the mode is
in the run object, the trace and the events; a code-mode follow-up without a goal carries
the plan as its task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from harness.run.toolbox import PLAN_TOOLS
from server.lsp.errors import INVALID_PARAMS
from tests.e2e.lsp import HarnessClient, call, turn
from tests.support.fake_llm import FakeLLM
from tests.support.wire_texts import body_text

PLAN = "Plan: 1. rename add to plus in src/a.py. 2. fix the sign."


def offered(body: dict[str, Any]) -> set[str]:
    return {t.get("function", t)["name"] for t in body.get("tools", [])}


async def test_plan_mode_reads_only_and_the_follow_up_carries_the_plan(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    before = {p: p.read_text() for p in (ws / "src").iterdir()}
    fake.add_turns(
        turn(
            call("read_file", path="src/a.py"),
            call("write_file", path="src/a.py", content="x = 1\n"),
            call("exec", argv=["touch", "made"]),
            call("rename", path="src/a.py", line=1, character=4, newName="plus"),
        ),
        {"content": PLAN},
    )
    started = await client.command("harness.run", {"goal": "fix add", "mode": "plan"})
    run_id = started["runId"]
    finished = await client.wait_finished(run_id)
    assert finished["outcome"] == "finished" and finished["summary"] == PLAN
    assert {p: p.read_text() for p in (ws / "src").iterdir()} == before
    assert not (ws / "made").exists()
    assert offered(fake.requests[0]) == PLAN_TOOLS  # the semantic reads too (§14)
    assert offered(fake.requests[0]) <= PLAN_TOOLS
    sent = body_text(fake.requests[1])
    assert "`write_file` is refused: this run is in plan mode" in sent
    assert "`exec` is refused" in sent and "`rename` is refused" in sent

    events = (await client.command("harness.run.events", {"runId": run_id}))["events"]
    assert events[0]["kind"] == "user" and events[0]["mode"] == "plan"
    statuses = [e["status"] for e in events if e["kind"] == "toolResult"]
    assert statuses == ["ok", "refused", "refused", "refused"]
    trace = await client.command("harness.trace.run", {"runId": run_id})
    assert trace["run"]["mode"] == "plan"

    fake.add_turns({"content": "Done as planned."})
    follow = await client.command("harness.run", {"conversationId": run_id})
    assert (await client.wait_finished(follow["runId"]))["outcome"] == "finished"
    last = body_text(fake.requests[-1])
    assert PLAN in last and "Carry out the plan above." in last
    assert "write_file" in offered(fake.requests[-1])
    trace = await client.command("harness.trace.run", {"runId": follow["runId"]})
    assert (trace["run"]["mode"], trace["run"]["goal"]) == ("code", "Carry out the plan above.")


async def test_a_run_without_a_goal_is_refused_unless_it_follows_a_plan(
    client: HarnessClient, fake: FakeLLM
) -> None:
    with pytest.raises(JsonRpcException) as caught:
        await client.command("harness.run", {"mode": "plan"})
    assert caught.value.code == INVALID_PARAMS and "`goal` is required" in str(caught.value)
    fake.add_turns({"content": "Hello."})
    run_id = (await client.command("harness.run", {"goal": "hi"}))["runId"]
    await client.wait_finished(run_id)
    with pytest.raises(JsonRpcException) as caught:
        await client.command("harness.run", {"conversationId": run_id})
    assert "`goal` is required" in str(caught.value)
    with pytest.raises(JsonRpcException) as caught:
        await client.command("harness.run", {"goal": "x", "mode": "write"})
    assert caught.value.code == INVALID_PARAMS
