"""Reviewing a run's changes hunk by hunk through the real server (issue 33; §11
``harness.run.changes`` hunks, ``harness.run.revertHunk``, ``harness.run.keep``): a run
edits two hunks of one file and one of another; undoing one hunk leaves the other; an undo
over lines the user changed since is refused, ``force`` overrides; the count to review
goes down with keep and undo; a bad hunk id or path is a clear error and changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from server.lsp.errors import CONFLICT, INVALID_PARAMS
from tests.e2e.lsp import HarnessClient, call, turn
from tests.support.fake_llm import FakeLLM

# The first three tests' runs edit Python files but their rules are not about diagnostics:
# no jedi-language-server after each editing turn (tests/e2e/conftest.py). The last one's is.
QUIET = pytest.mark.usefixtures("no_after_edit_diagnostics")
ORIGINAL = "".join(f"line {n}\n" for n in range(1, 11))
AGENTS = ORIGINAL.replace("line 2\n", "LINE TWO\n").replace("line 9\n", "LINE NINE\n")


def hunks_of(changes: list[dict[str, Any]], path: str) -> list[dict[str, Any]]:
    (found,) = [c for c in changes if c["path"] == path]
    hunks: list[dict[str, Any]] = found["hunks"]
    return hunks


async def edit_run(client: HarnessClient, fake: FakeLLM, ws: Path) -> int:
    (ws / "src" / "long.py").write_text(ORIGINAL)
    fake.add_turns(
        turn(call("write_file", path="src/long.py", content=AGENTS)),
        turn(call("edit_file", path="src/b.py", old="B_VERSION = 1", new="B_VERSION = 2")),
        {"content": "done"},
    )
    run_id = (await client.command("harness.run", {"goal": "edit"}))["runId"]
    assert (await client.wait_finished(run_id))["outcome"] == "finished"
    return int(run_id)


async def refused(client: HarnessClient, name: str, arguments: dict[str, Any]) -> Any:
    with pytest.raises(JsonRpcException) as caught:
        await client.command(name, arguments)
    return caught.value


@QUIET
async def test_undo_one_hunk_keeps_the_other_and_the_count_goes_down(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    run_id = await edit_run(client, fake, ws)
    changes = await client.command("harness.run.changes", {"runId": run_id})
    two, nine = hunks_of(changes, "src/long.py")
    assert (two["oldStart"], two["oldLines"], two["newStart"], two["newLines"]) == (2, 1, 2, 1)
    assert (two["before"], two["after"], two["state"]) == ("line 2\n", "LINE TWO\n", "pending")
    assert (nine["before"], nine["after"]) == ("line 9\n", "LINE NINE\n")
    assert sum(c["toReview"] for c in changes) == 3

    done = await client.command(
        "harness.run.revertHunk", {"runId": run_id, "path": "src/long.py", "hunkId": two["id"]}
    )
    assert (done["action"], done["toReview"]) == ("undone", 2)
    assert isinstance(done["diagnostics"], list) and done["diagnosticsReason"] == ""
    assert (ws / "src" / "long.py").read_text() == ORIGINAL.replace("line 9\n", "LINE NINE\n")
    again = hunks_of(await client.command("harness.run.changes", {"runId": run_id}), "src/long.py")
    assert [(h["id"], h["state"]) for h in again] == [
        (two["id"], "undone"),
        (nine["id"], "pending"),
    ]

    kept = await client.command("harness.run.keep", {"runId": run_id, "path": "src/b.py"})
    assert (kept["kept"], kept["toReview"]) == (1, 1)
    # The file is still the agent's: reverting it whole is not refused as changed since.
    whole = await client.command("harness.run.revertFile", {"runId": run_id, "path": "src/long.py"})
    assert whole["action"] == "restored"
    assert (ws / "src" / "long.py").read_text() == ORIGINAL


@QUIET
async def test_an_undo_over_the_users_change_is_refused_unless_forced(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    run_id = await edit_run(client, fake, ws)
    _, nine = hunks_of(
        await client.command("harness.run.changes", {"runId": run_id}), "src/long.py"
    )
    target = ws / "src" / "long.py"
    users = AGENTS.replace("LINE NINE\n", "the user's nine\n")
    target.write_text(users)
    undo = {"runId": run_id, "path": "src/long.py", "hunkId": nine["id"]}
    error = await refused(client, "harness.run.revertHunk", undo)
    assert error.code == CONFLICT and "changed since the agent wrote them" in str(error)
    assert target.read_text() == users  # nothing changed
    done = await client.command("harness.run.revertHunk", {**undo, "force": True})
    assert done["action"] == "undone"
    assert target.read_text() == AGENTS.replace("LINE NINE\n", "line 9\n")


@QUIET
async def test_bad_hunk_ids_and_paths_are_clear_errors_and_change_nothing(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    run_id = await edit_run(client, fake, ws)
    target = ws / "src" / "long.py"
    error = await refused(
        client, "harness.run.revertHunk", {"runId": run_id, "path": "src/long.py", "hunkId": "nope"}
    )
    assert error.code == INVALID_PARAMS and "has no hunk 'nope'" in str(error)
    error = await refused(
        client, "harness.run.revertHunk", {"runId": run_id, "path": "src/a.py", "hunkId": "x"}
    )
    assert error.code == INVALID_PARAMS and "not among the changes" in str(error)
    error = await refused(client, "harness.run.keep", {"runId": run_id, "hunkIds": ["x"]})
    assert error.code == INVALID_PARAMS and "need the `path`" in str(error)
    assert target.read_text() == AGENTS
    changes = await client.command("harness.run.changes", {"runId": run_id})
    assert sum(c["toReview"] for c in changes) == 3


BROKEN = "def total(items:\n    return sum(items)\n"
FIXED = "def total(items):\n    return sum(items)\n"


async def test_undoing_a_file_reports_the_errors_the_undo_brought_back(
    client: HarnessClient, fake: FakeLLM, ws: Path
) -> None:
    """Issue 33, "what an undo broke": the agent fixed a syntax error; undoing its write
    brings the error back, and the answer says so — through the headless language server
    (jedi-language-server, §14), not silently."""
    (ws / "src" / "calc.py").write_text(BROKEN)
    fake.add_turns(turn(call("write_file", path="src/calc.py", content=FIXED)), {"content": "ok"})
    run_id = (await client.command("harness.run", {"goal": "fix calc"}))["runId"]
    assert (await client.wait_finished(run_id))["outcome"] == "finished"
    done = await client.command("harness.run.revertFile", {"runId": run_id, "path": "src/calc.py"})
    assert (ws / "src" / "calc.py").read_text() == BROKEN
    assert done["diagnosticsReason"] == ""
    errors = [d for d in done["diagnostics"] if d["severity"] == "error"]
    assert errors, done
    assert {d["path"] for d in errors} == {"src/calc.py"} and errors[0]["line"] == 1
    # Undoing again changes nothing, so it introduces nothing.
    again = await client.command("harness.run.revertFile", {"runId": run_id, "path": "src/calc.py"})
    assert again["diagnostics"] == []
