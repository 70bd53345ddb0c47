"""The observer hooks a host shows progress from (issue 13): the model's answer, every
provider attempt (with the retry fields), each call's result, and the verification's start
and result — in the order they happen, from a real run (real tools, policy, store, the
scripted model; a real HTTP server for the retries)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from harness.contract import TaskContract, Verification
from harness.policy import Policy, UnavailableApprover
from harness.provider import ProviderConfig
from harness.provider.scripted import ScriptedProvider
from harness.report import RunInfo, RunObserver, StepSummary
from harness.run.session import Backend, RunRequest, open_session
from harness.store import Store
from harness.types import Approval, Attempt, Reply, ToolCall, ToolResult
from tests.conftest import MakeFakeLLM
from tests.support.fake_llm import Fault


class Events(RunObserver):
    def __init__(self) -> None:
        self.seen: list[tuple[Any, ...]] = []
        self.results: list[ToolResult] = []
        self.attempts: list[Attempt] = []

    def step_started(self, run: RunInfo, step: int) -> None:
        self.seen.append(("step", step))

    def model_replied(self, run: RunInfo, step: int, reply: Reply) -> None:
        self.seen.append(("replied", step, reply.content, len(reply.tool_calls)))

    def attempt_made(self, run: RunInfo, step: int, attempt: Attempt) -> None:
        self.attempts.append(attempt)
        self.seen.append(("attempt", step, attempt.attempt, attempt.failure))

    def tool_started(self, run: RunInfo, step: int, call: ToolCall, label: str) -> None:
        self.seen.append(("started", step, label))

    def tool_finished(self, run: RunInfo, step: int, call: ToolCall, result: ToolResult) -> None:
        self.results.append(result)
        self.seen.append(("finished", step, call.name, result.ok))

    def verification_started(self, run: RunInfo, step: int, command: str) -> None:
        self.seen.append(("verifying", step, command))

    def verification_finished(self, run: RunInfo, step: int, result: ToolResult) -> None:
        self.results.append(result)
        self.seen.append(("verified", step, result.ok, result.exit_code))

    def step_finished(self, run: RunInfo, summary: StepSummary) -> None:
        self.seen.append(("done", summary.step))


async def execute(ws: Path, tmp_path: Path, provider: Any, contract: TaskContract) -> Events:
    events = Events()
    session = await open_session(
        contract,
        Backend(store=Store(tmp_path / "s.db"), provider=provider),
        RunRequest(
            approver=UnavailableApprover(),
            policy=Policy.load(ws, user_config=None),
            observer=events,
        ),
    )
    await session.execute()
    return events


def a_refused_call(step: int, words: str, label: str, tool: str) -> list[tuple[Any, ...]]:
    """The hooks of a step whose one call (``label``) the policy refused, in their order."""
    return [
        ("step", step),
        ("attempt", step, 1, None),
        ("replied", step, words, 1),
        ("started", step, label),
        ("finished", step, tool, False),
        ("done", step),
    ]


async def test_hooks_come_in_the_order_things_happen(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "check.py").write_text("import sys\nsys.exit(3)\n")
    provider = ScriptedProvider(
        [
            {
                "content": "Reading.",
                "tool_calls": [{"name": "read_file", "arguments": {"path": ".env"}}],
            },
            {"tool_calls": [{"name": "exec", "arguments": {"argv": ["ls"]}}]},
            {"content": "Done."},
        ]
    )
    contract = TaskContract.workspace("x", ws, Verification.command([sys.executable, "check.py"]))
    events = await execute(ws, tmp_path, provider, contract.with_max_steps(3))
    command = f"{sys.executable} check.py"
    assert events.seen[:16] == [
        *a_refused_call(1, "Reading.", "read .env", "read_file"),
        *a_refused_call(2, "", "exec ls", "exec"),
        ("step", 3),
        ("attempt", 3, 1, None),
        ("replied", 3, "Done.", 0),
        ("verifying", 3, command),
    ]
    assert events.seen[16:] == [("verified", 3, False, 3), ("done", 3)]
    secret, ls, verification = events.results
    assert [(p.layer, p.rule, p.allowed) for p in secret.policy] == [("builtin", ".env", False)]
    (asked,) = ls.policy
    assert asked.approval is Approval.UNAVAILABLE and not asked.allowed
    assert verification.exit_code == 3
    # the verification ran on the run's grant, and that is recorded too (§6.3)
    assert [(p.allowed, p.detail) for p in verification.policy] == [(True, "granted for this run")]


async def test_a_retried_attempt_carries_its_count_and_wait(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake = fake_llm([{"content": "ok"}])
    fake.inject(Fault.rate_limited(retry_after="0"))
    config = ProviderConfig(name="openai", model="m", base_url=fake.url)
    events = await execute(ws, tmp_path, config, TaskContract.workspace("x", ws))
    failed, succeeded = events.attempts
    assert (failed.attempt, failed.status, failed.failure) == (1, 429, "rate_limited")
    assert failed.retry_in_s == 0 and failed.max_attempts == 5
    assert (succeeded.attempt, succeeded.failure, succeeded.retry_in_s) == (2, None, None)
