"""A run through the real server end to end (issue 6): the server as a subprocess over stdio,
a real Chat Completions server on 127.0.0.1 as the model, a real workspace and store.

Progress begin/report…/end, ``harness/budget`` values equal to the trace, ``harness/runFinished``,
the edit on disk and ``harness/didWrite``; cancelling; one run per folder; status."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.lsp import (
    HarnessClient,
    call,
    turn,
)
from tests.support.e2e_spec import notification_fields
from tests.support.fake_llm import FakeLLM

# Runs here edit Python files, but no rule here is about diagnostics: no jedi-language-server
# after each editing turn (tests/e2e/conftest.py).
pytestmark = pytest.mark.usefixtures("no_after_edit_diagnostics")


async def test_a_run_end_to_end(client: HarnessClient, ws: Path, fake: FakeLLM) -> None:
    fake.add_turns(
        turn(call("grep", pattern="BUG"), call("list_dir", path="src")),
        turn(call("read_file", path="src/a.py")),
        turn(call("edit_file", path="src/a.py", old="return a - b  # BUG", new="return a + b")),
        {"content": "Fixed add()."},
    )
    fake.cache_tokens = (128, 0)
    started = await client.command("harness.run", {"goal": "Fix add()", "maxSteps": 10})
    assert set(started) == {"runId", "conversationId"}  # a new run: its own conversation
    assert started["conversationId"] == started["runId"]
    run_id = started["runId"]

    finished = await client.wait_finished(run_id)

    assert finished == {
        "runId": run_id,
        "outcome": "finished",
        "steps": 4,
        "spentTokens": finished["spentTokens"],
        "costUsd": None,  # model "m" has no price
        "summary": "Fixed add().",
        "filesChanged": ["src/a.py"],
        "refused": 0,
        "denied": 0,
        "failed": 0,
        "conversationId": run_id,  # a new run is its own conversation, at turn 1 (§8.1)
        "turn": 1,
    }
    assert (ws / "src" / "a.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert client.did_write == [(ws / "src" / "a.py").resolve().as_uri()]

    # progress: begin, a report per step and per tool, end
    (token,) = client.progress_reports
    reports = client.progress_reports[token]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert reports[0].cancellable is True
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert "finished" in (reports[-1].message or "")
    messages = [r.message for r in reports[1:-1] if isinstance(r, types.WorkDoneProgressReport)]
    assert len(messages) == len(reports) - 2
    assert "step 1/10" in messages
    assert "step 1/10 · grep BUG" in messages
    spent = client.budgets[0]["spentTokens"]
    assert f"step 2/10 · {spent:,} tokens · read src/a.py" in messages, "tokens so far, first"
    assert f"step 4/10 · {client.budgets[2]['spentTokens']:,} tokens" in messages

    # harness/budget after every step, with the values the trace holds
    trace = await client.command("harness.trace.run", {"runId": run_id})
    assert [b["step"] for b in client.budgets] == [1, 2, 3, 4]
    for budget, step in zip(client.budgets, trace["steps"], strict=True):
        # SPEC's fields, and issue 34's cost against appending (docs/server.md)
        assert set(budget) == notification_fields("harness/budget") | {"contextVsAppend"}
        assert budget["runId"] == run_id
        assert budget["step"] == step["step"]
        assert budget["requestTokens"] == step["estTokens"]
        assert budget["contextCeiling"] == step["contextCeiling"]
        assert budget["reportedPromptTokens"] == step["reportedPromptTokens"] is not None
        assert budget["maxSteps"] == 10 and budget["tokenBudget"] == 2_000_000
        assert budget["cachedPromptTokens"] == 128, "the provider's reported cache reads"
    # ... derived from the §11 stream: each is its `budget` event's fields, sent after it
    shown = [e for e in client.events if e["kind"] == "budget"]
    envelope = ("conversationId", "seq", "kind")
    assert [{k: v for k, v in e.items() if k not in envelope} for e in shown] == client.budgets
    assert client.budgets[0]["prefixChars"] == 0
    assert all(b["prefixChars"] > 0 for b in client.budgets[1:])
    assert client.budgets[-1]["spentTokens"] == trace["run"]["spentTokens"]
    assert finished["spentTokens"] == trace["run"]["spentTokens"]
    spent = [b["spentTokens"] for b in client.budgets]
    assert spent == sorted(spent) and spent[0] > 0
    assert trace["run"]["outcome"] == "finished"

    status = await client.command("harness.status")
    assert status["runs"] == []
    assert status["lastBudget"] == client.budgets[-1]
