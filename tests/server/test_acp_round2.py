"""The ACP front's new pure parts (issue 38): a plan's steps from the model's words and their
status over the turns, ``/`` commands expanded, a result's reason, output and locations,
and a replayed turn's resource links (with lines) that ``prompt_of`` reads back the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import ResourceContentBlock, TextContentBlock

from harness.run.conversation import Attachment
from server.acp.agent import prompt_of
from server.acp.commands import expand_command
from server.acp.plan import PlanTracker, plan_steps
from server.acp.updates import translate

ROOT = Path("/w")


def _none(run_id: int, path: str) -> None:
    return None


def dumped(event: dict[str, Any], calls: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    updates = translate(ROOT, event, {} if calls is None else calls, _none, replay=True)
    return [u.model_dump(mode="json", by_alias=True, exclude_none=True) for u in updates]


def test_a_plan_is_the_numbered_list_else_the_bulleted_one() -> None:
    words = "Plan:\n\n- context\n1. Read **a.py**\n2) Fix add()\n   - a detail\n10. Test\n"
    assert plan_steps(words) == ["Read a.py", "Fix add()", "Test"]
    assert plan_steps("* one\n+ two\nnot a step") == ["one", "two"]
    assert plan_steps("No list at all.") == []


def test_the_plan_goes_in_progress_then_completed_and_a_failure_leaves_it() -> None:
    plan = PlanTracker()
    assert plan.updates({"kind": "user", "mode": "plan"}) == []
    plan.updates({"kind": "text", "step": 1, "delta": "Reading first."})
    plan.updates({"kind": "text", "step": 2, "delta": "1. Read\n2. Fix\n"})
    (made,) = plan.updates({"kind": "end", "outcome": "finished"})
    assert [(e.content, e.status) for e in made.entries] == [
        ("Read", "pending"),
        ("Fix", "pending"),
    ]
    (started,) = plan.updates({"kind": "user", "mode": "code"})
    assert [e.status for e in started.entries] == ["in_progress", "pending"]
    assert plan.updates({"kind": "end", "outcome": "provider_error"}) == []
    assert plan.updates({"kind": "user", "mode": "code"})[0].entries[1].status == "in_progress"
    (done,) = plan.updates({"kind": "end", "outcome": "success"})
    assert {e.status for e in done.entries} == {"completed"}
    assert plan.updates({"kind": "user", "mode": "code"}) == []  # carried out: gone


def test_slash_commands_expand_or_pass_as_words(tmp_path: Path) -> None:
    prompts = tmp_path / ".claude" / "commands"
    prompts.mkdir(parents=True)
    (prompts / "review.md").write_text("Review ${input:file} carefully.\n")
    (prompts / "empty.md").write_text("$ARGUMENTS")
    planned = expand_command("/plan fix the sign", tmp_path, 0.0)
    assert planned is not None and (planned.goal, planned.mode) == ("fix the sign", "plan")
    cost = expand_command("/cost", tmp_path, 0.25)
    assert cost is not None and cost.answer == "This session has spent $0.2500."
    assert expand_command("/usr/bin/env is odd", tmp_path, 0.0) is None
    assert expand_command("/nosuch thing", tmp_path, 0.0) is None
    for bad in ("/plan", "/review a.py", "/empty"):
        with pytest.raises(RequestError):
            expand_command(bad, tmp_path, 0.0)


def test_a_failed_result_says_its_whole_reason_and_a_search_its_locations() -> None:
    calls: dict[str, Any] = {"1-c": {"name": "references", "target": "a.py", "callId": "c"}}
    located = {
        "kind": "toolResult", "runId": 1, "callId": "c", "status": "ok", "summary": "refs",
        "locations": [{"path": "src/a.py", "line": 3}, {"path": "b.py", "line": 10}],
    }  # fmt: skip
    (update,) = dumped(located, calls)
    assert update["locations"] == [
        {"path": "/w/src/a.py", "line": 3},
        {"path": "/w/b.py", "line": 10},
    ]
    failed = {
        "kind": "toolResult", "runId": 1, "callId": "d", "status": "refused",
        "why": "refused (plan mode)", "reason": "`exec` is refused: this run is in plan mode",
    }  # fmt: skip
    (update,) = dumped(failed)
    (shown,) = [c["content"]["text"] for c in update["content"]]
    assert shown == "```\n`exec` is refused: this run is in plan mode\n```"


def test_a_replayed_turn_links_its_files_as_prompt_of_reads_them() -> None:
    user = {
        "kind": "user", "text": "Why?",
        "context": [{"path": "src/a.py"}, {"path": "b.py", "offset": 10, "limit": 11}],
    }  # fmt: skip
    text, *links = dumped(user)
    assert text["content"] == {"type": "text", "text": "Why?"}
    uris = [link["content"]["uri"] for link in links]
    assert uris == ["file:///w/src/a.py", "file:///w/b.py#L10-20"]
    blocks = [u["content"] for u in (text, *links)]
    typed = [TextContentBlock(**blocks[0])] + [ResourceContentBlock(**b) for b in blocks[1:]]
    assert prompt_of(typed) == (
        "Why?",
        [Attachment("/w/src/a.py"), Attachment("/w/b.py", offset=10, limit=11)],
    )


def test_a_rename_shows_every_files_diff() -> None:
    texts = {"a.py": ("def add(): ...\n", "def plus(): ...\n"), "b.py": ("add()\n", "plus()\n")}

    def edits(run_id: int, path: str) -> tuple[str | None, str] | None:
        return texts.get(path)

    calls: dict[str, Any] = {"1-r": {"name": "rename_symbol", "target": "a.py", "callId": "r"}}
    renamed = {
        "kind": "toolResult", "runId": 1, "callId": "r", "status": "ok", "summary": "renamed",
        "wrote": ["a.py", "b.py"],
    }  # fmt: skip
    (update,) = translate(ROOT, renamed, calls, edits, replay=False)
    shown = update.model_dump(mode="json", by_alias=True, exclude_none=True)
    diffs = [(c["path"], c["newText"]) for c in shown["content"] if c["type"] == "diff"]
    assert diffs == [("/w/a.py", "def plus(): ...\n"), ("/w/b.py", "plus()\n")]
