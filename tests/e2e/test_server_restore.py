"""Checkpoints through the real server (issue 33, ``harness.conversation.restore``): a
three-turn conversation restored to turn 2 has its files as before turn 2; the next
follow-up's first request carries turn 1 only and starts with turn 1's last request (less
its trailer); ``harness.run.events`` marks turns 2 and 3 rewound. A file the user changed
refuses the restore (listed, nothing changed) unless ``force``; a turn beyond the
conversation and a conversation of another workspace are clear errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from server.lsp.errors import CONFLICT, INVALID_PARAMS
from tests.e2e.cli import harness, run_args
from tests.e2e.lsp import HarnessClient, call, turn
from tests.support.fake_llm import FakeLLM
from tests.support.wire_texts import body_text, without_trailer

# Runs here edit Python files, but no rule here is about diagnostics: no jedi-language-server
# after each editing turn (tests/e2e/conftest.py).
pytestmark = pytest.mark.usefixtures("no_after_edit_diagnostics")


async def ask(client: HarnessClient, arguments: dict[str, Any]) -> int:
    run_id = (await client.command("harness.run", arguments))["runId"]
    assert (await client.wait_finished(run_id))["outcome"] == "finished"
    return int(run_id)


async def three_turns(client: HarnessClient, fake: FakeLLM) -> int:
    fake.add_turns(turn(call("write_file", path="one.py", content="ONE = 1\n")), {"content": "1"})
    conv = await ask(client, {"goal": "turn one"})
    fake.add_turns(
        turn(call("edit_file", path="one.py", old="ONE = 1", new="ONE = 2")),
        turn(call("write_file", path="two.py", content="TWO = 2\n")),
        {"content": "2"},
    )
    await ask(client, {"goal": "turn two", "conversationId": conv})
    fake.add_turns(
        turn(call("edit_file", path="src/b.py", old="B_VERSION = 1", new="B_VERSION = 3")),
        {"content": "3"},
    )
    await ask(client, {"goal": "turn three", "conversationId": conv})
    return conv


async def refused(client: HarnessClient, arguments: dict[str, Any]) -> Any:
    with pytest.raises(JsonRpcException) as caught:
        await client.command("harness.conversation.restore", arguments)
    return caught.value


async def test_restore_to_turn_2_puts_files_and_context_back(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    conv = await three_turns(client, fake)
    last_of_turn_1 = body_text(fake.requests[1])
    done = await client.command("harness.conversation.restore", {"conversationId": conv, "turn": 2})
    assert done["restored"] and done["rewoundRuns"] == [conv + 1, conv + 2]
    assert isinstance(done["diagnostics"], list) and done["diagnosticsReason"] == ""
    assert (ws / "one.py").read_text() == "ONE = 1\n"
    assert not (ws / "two.py").exists()
    assert (ws / "src" / "b.py").read_text() == "B_VERSION = 1\n"

    fake.add_turns({"content": "4"})
    await ask(client, {"goal": "turn four", "conversationId": conv})
    first = body_text(fake.requests[-1])
    assert first.startswith(without_trailer(last_of_turn_1))
    assert "turn one" in first
    assert "turn two" not in first and "turn three" not in first and "TWO = 2" not in first

    events = await client.command("harness.run.events", {"conversationId": conv})
    marked = {(e["runId"], e.get("rewound", False)) for e in events}
    assert marked == {(conv, False), (conv + 1, True), (conv + 2, True), (conv + 3, False)}


async def test_a_users_change_refuses_the_restore_unless_forced(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    conv = await three_turns(client, fake)
    (ws / "two.py").write_text("TWO = 'the user's'\n")
    error_free = await client.command(
        "harness.conversation.restore", {"conversationId": conv, "turn": 2}
    )
    assert not error_free["restored"]
    assert [(f["path"], f["action"]) for f in error_free["files"]] == [("two.py", "refused")]
    assert (ws / "one.py").read_text() == "ONE = 2\n"  # nothing changed
    runs = await client.command("harness.trace.runs", {})
    assert not any(r["rewound"] for r in runs)
    forced = await client.command(
        "harness.conversation.restore", {"conversationId": conv, "turn": 2, "force": True}
    )
    assert forced["restored"] and not (ws / "two.py").exists()
    assert (ws / "one.py").read_text() == "ONE = 1\n"


async def test_bad_restores_are_clear_errors_and_change_nothing(
    client: HarnessClient, fake: FakeLLM, ws: Path, store: Path, tmp_path: Path
) -> None:
    conv = await three_turns(client, fake)
    error = await refused(client, {"conversationId": conv, "turn": 9})
    assert error.code == INVALID_PARAMS and "has turns 1–3, not 9" in str(error)
    assert (ws / "one.py").read_text() == "ONE = 2\n"
    other = tmp_path / "other"
    other.mkdir()
    fake.add_turns(turn(call("write_file", path="x.py", content="X\n")), {"content": "x"})
    out = harness(*run_args("elsewhere", fake.url, other, store, "--json"))
    assert out.code == 0, out.stderr
    theirs = out.json()["conversationId"]
    error = await refused(client, {"conversationId": theirs, "turn": 1})
    assert error.code == CONFLICT and str(other.resolve()) in str(error)
    assert (other / "x.py").read_text() == "X\n"
    error = await refused(client, {"conversationId": 999, "turn": 1})
    assert "no conversation 999" in str(error)
