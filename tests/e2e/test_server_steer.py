"""Steering a run through the real server (issue 33, ``harness.run.steer``): words sent
during step 2 are in the request after step 2's results, the request before is a prefix of
that request (the provider's cache holds), they show as a user event inside the run; a
steer to a finished run, or an empty one, is a clear error."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from server.lsp.errors import CONFLICT, INVALID_PARAMS
from tests.e2e.lsp import HarnessClient, call, held, turn
from tests.support.fake_llm import FakeLLM
from tests.support.wire_texts import body_text, without_trailer

SAID = "not b.py, leave that file alone"


async def test_words_sent_during_step_2_follow_its_results_and_keep_the_prefix(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    release = threading.Event()
    fake.add_turns(
        turn(call("read_file", path="src/a.py")),
        held(release, turn(call("list_dir", path="src"))),
        {"content": "Understood."},
    )
    run_id = (await client.command("harness.run", {"goal": "tidy"}))["runId"]
    await client.wait_for(lambda: len(fake.requests) >= 2)
    queued = await client.command("harness.run.steer", {"runId": run_id, "text": SAID})
    assert queued == {"runId": run_id, "queued": True}
    release.set()
    assert (await client.wait_finished(run_id))["outcome"] == "finished"

    before, after = body_text(fake.requests[1]), body_text(fake.requests[2])
    assert after.startswith(without_trailer(before)), "the request before is the prefix"
    added = after[len(without_trailer(before)) :]
    assert added.index("[list src]") < added.index(f"# The user, while you work\n{SAID}")
    assert SAID not in before

    events = (await client.command("harness.run.events", {"runId": run_id}))["events"]
    users = [(e["step"], e["text"], e.get("steer")) for e in events if e["kind"] == "user"]
    assert users == [(0, "tidy", None), (2, SAID, True)]

    with pytest.raises(JsonRpcException) as caught:
        await client.command("harness.run.steer", {"runId": run_id, "text": "late"})
    assert caught.value.code == CONFLICT and "is not in progress" in str(caught.value)
    with pytest.raises(JsonRpcException) as caught:
        await client.command("harness.run.steer", {"runId": run_id, "text": "  "})
    assert caught.value.code == INVALID_PARAMS and "`text` is empty" in str(caught.value)
    assert len(fake.requests) == 3
