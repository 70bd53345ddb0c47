"""How a call went, as the terminal says it (``harness.marks``), from the results the
real tools return, and the end-of-run line built from it (``harness.cli.summary``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.cli.summary import RunTally, final_line
from harness.marks import Went, call_mark, verify_mark
from harness.policy import Gate, Layer, Policy, Rule, UnavailableApprover
from harness.report import RunResult, StepSummary
from harness.tools import all_tools, dispatch
from harness.tools.base import ToolContext
from harness.types import (
    Act,
    ContextCounts,
    Effect,
    Notice,
    NoticeKind,
    Outcome,
    RunEnd,
    ToolCall,
    ToolResult,
)
from harness.workspace import Workspace


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("A = 1\n")
    (ws / ".env").write_text("X=1\n")
    policy = Policy([Layer("user", (Rule(Act.EXEC, Effect.DENY, "rm *"),))])
    return ToolContext(
        workspace=Workspace(ws),
        gate=Gate(policy, UnavailableApprover(), run_id=1),
        run_id=1,
        step=1,
        read_limit_chars=10_000,
    )


async def run(ctx: ToolContext, name: str, **arguments: object) -> ToolResult:
    return await dispatch(ToolCall("c1", name, arguments), all_tools(), ctx)


@pytest.mark.parametrize(
    ("name", "arguments", "went", "text"),
    [
        pytest.param("read_file", {"path": "a.py"}, Went.OK, "✓", id="ok"),
        pytest.param(
            "read_file", {"path": ".env"}, Went.REFUSED, "✗ refused (builtin: .env)", id="secret"
        ),
        pytest.param(
            "read_file", {"path": "../x"}, Went.REFUSED, "✗ leaves the workspace", id="outside"
        ),
        pytest.param(
            "write_file",
            {"path": ".git/config", "content": "x"},
            Went.REFUSED,
            "✗ is inside .git/",
            id="dot-git",
        ),
        pytest.param(
            "edit_file",
            {"path": "a.py", "old": "B", "new": "C"},
            Went.FAILED,
            "✗ `old` was not found in `a.py`",
            id="edit-not-found",
        ),
        pytest.param(
            "exec",
            {"argv": ["rm", "-rf", "x"]},
            Went.REFUSED,
            "✗ refused (user: rm *)",
            id="deny-rule",
        ),
        pytest.param(
            "exec",
            {"argv": ["ls"]},
            Went.NEEDS_APPROVAL,
            "! needs approval — not available",
            id="no-approver",
        ),
        pytest.param(
            "read_file",
            {"path": "missing.py"},
            Went.FAILED,
            "✗ `missing.py` does not exist",
            id="missing",
        ),
    ],
)
async def test_the_mark_of_a_real_result(
    ctx: ToolContext, name: str, arguments: dict[str, object], went: Went, text: str
) -> None:
    mark = call_mark(await run(ctx, name, **arguments))
    assert (mark.went, mark.text) == (went, text)


async def test_a_command_that_exits_non_zero(ctx: ToolContext) -> None:
    ctx.gate.grant_run(Act.EXEC, f"{sys.executable} -c 'raise SystemExit(4)'")
    result = await run(ctx, "exec", argv=[sys.executable, "-c", "raise SystemExit(4)"])
    assert call_mark(result).text == "✗ exit 4"


def test_an_unsaved_buffer_refusal_is_a_refusal() -> None:
    notice = Notice(NoticeKind.UNSAVED_REFUSED, "a.py", "unsaved")
    result = ToolResult("write_file", "a.py", "[write a.py]\nerror: x", ok=False, notices=(notice,))
    mark = call_mark(result)
    assert mark.went is Went.REFUSED and mark.stopped


def test_verification_marks() -> None:
    passed = ToolResult("verify", "pytest", "[verify pytest] passed", ok=True, exit_code=0)
    failed = ToolResult("verify", "pytest", "[verify pytest] failed", ok=False, exit_code=1)
    no_box = ToolResult(
        "verify",
        "pytest",
        "[verify pytest] failed (expected exit 0)\nerror: commands must run in a sandbox; x",
        ok=False,
    )
    assert verify_mark(passed).text == "✓ passed"
    assert verify_mark(failed).text == "✗ failed (exit 1)"
    assert verify_mark(no_box).text == "✗ did not run: commands must run in a sandbox"


def summary(step: int, reported: int | None, cached: int | None) -> StepSummary:
    return StepSummary(1, step, 10, 100, 1000, 50, 24_000, reported, ContextCounts(), cached)


def test_the_final_line_counts_in_words_and_the_cached_share() -> None:
    tally = RunTally()
    result = RunResult(3, RunEnd(Outcome.FINISHED, 1, 1_234), files_changed=("a.py",))
    assert final_line(result, tally).plain == (
        "run 3 finished · 1 step · 1,234 tokens, no cache figures · 1 file changed"
    )
    tally.stepped(summary(1, 1_000, 0))
    tally.stepped(summary(2, 1_000, 500))
    two = RunResult(3, RunEnd(Outcome.SUCCESS, 2, 2_000))
    assert final_line(two, tally).plain == (
        "run 3 success · 2 steps · 2,000 tokens, 25% cached · no files changed"
    )
