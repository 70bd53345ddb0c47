"""Prompt files and slash commands through the real server (issue 33, ``harness.prompts``,
``harness.run {prompt, arguments}``): the built-ins, a user prompt and the repository's are
listed with their sources; ``$ARGUMENTS`` and ``${input:name}`` are expanded into the
user's turn and the trace names the repository's prompt; a repository prompt asking for an
exec still gets an approval; a 1 MB prompt file and a name with path characters are clear
errors and start nothing."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from harness.store import Store
from server.lsp.errors import INVALID_PARAMS
from tests.e2e.lsp import SCRATCH, HarnessClient, call, turn
from tests.support.fake_llm import FakeLLM
from tests.support.wire_texts import body_text

FIX = "---\ndescription: Fix a file\nargument-hint: FILE\n---\nFix the bug in $ARGUMENTS.\n"


@pytest.fixture
def user_prompt() -> Iterator[Path]:
    folder = SCRATCH / "config" / "harness" / "prompts"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mine.md").write_text("Explain ${input:topic} briefly.\n")
    yield folder
    shutil.rmtree(folder)


async def test_prompts_are_listed_expanded_and_get_no_authority(
    client: HarnessClient, fake: FakeLLM, ws: Path, store: Path, user_prompt: Path
) -> None:
    (ws / ".github" / "prompts").mkdir(parents=True)
    (ws / ".github" / "prompts" / "x.prompt.md").write_text(FIX)
    (ws / ".claude" / "commands").mkdir(parents=True)
    (ws / ".claude" / "commands" / "test.md").write_text("Run the tests with exec.\n")
    (ws / ".claude" / "commands" / "huge.md").write_text("x" * 1_000_000)

    listed = await client.command("harness.prompts", {})
    by_name = {p["name"]: p for p in listed}
    assert [p["name"] for p in listed if p["source"] == "builtin"] == [
        "new",
        "plan",
        "undo",
        "cost",
        "memory",
        "help",
    ]
    assert by_name["mine"]["source"] == "user"
    x = by_name["x"]
    assert (x["source"], x["description"], x["argumentHint"]) == (
        "repository",
        "Fix a file",
        "FILE",
    )
    assert by_name["test"]["source"] == "repository"
    assert "over 65,536 bytes" in by_name["huge"]["error"]

    fake.add_turns({"content": "Fixed."})
    run_id = (await client.command("harness.run", {"prompt": "x", "arguments": "src/a.py"}))[
        "runId"
    ]
    await client.wait_finished(run_id)
    assert "Fix the bug in src/a.py." in body_text(fake.requests[-1])
    events = (await client.command("harness.run.events", {"runId": run_id}))["events"]
    assert events[0]["text"] == "Fix the bug in src/a.py."
    trace = Store(store)
    marks = [e["detail"] for e in trace.context_events(run_id, "prompt")]
    trace.close()
    assert [(m["name"], m["source"]) for m in marks] == [("x", "repository")]

    fake.add_turns({"content": "Topic explained."})
    arguments = {"prompt": "mine", "arguments": {"topic": "closures"}}
    run_id = (await client.command("harness.run", arguments))["runId"]
    await client.wait_finished(run_id)
    assert "Explain closures briefly." in body_text(fake.requests[-1])

    asked = len(client.approvals)
    client.answers = ["Deny"]
    fake.add_turns(turn(call("exec", argv=["touch", "ran"])), {"content": "Denied."})
    run_id = (await client.command("harness.run", {"prompt": "test"}))["runId"]
    await client.wait_finished(run_id)
    assert len(client.approvals) == asked + 1 and not (ws / "ran").exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"prompt": "huge"}, "over 65,536 bytes"),
        ({"prompt": "../secret"}, "is not a prompt name"),
        ({"prompt": "nope"}, "no prompt 'nope'"),
        ({"prompt": "mine"}, "needs `arguments.topic`"),
        ({"prompt": "undo"}, "/undo is the client's to carry out"),
        ({"prompt": "x", "goal": "g"}, "not both"),
    ],
)
async def test_bad_prompts_are_clear_errors_and_start_nothing(
    client: HarnessClient,
    fake: FakeLLM,
    ws: Path,
    user_prompt: Path,
    arguments: dict[str, str],
    message: str,
) -> None:
    (ws / ".claude" / "commands").mkdir(parents=True)
    (ws / ".claude" / "commands" / "huge.md").write_text("x" * 1_000_000)
    (ws / ".claude" / "commands" / "x.md").write_text("X")
    with pytest.raises(JsonRpcException) as caught:
        await client.command("harness.run", arguments)
    assert caught.value.code == INVALID_PARAMS and message in str(caught.value)
    assert fake.requests == []
    assert await client.command("harness.trace.runs", {}) == []
