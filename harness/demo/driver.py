"""Running the demo session for real: a generated workspace, the real loop, tools, policy
and store, and a scripted model. Used by ``harness demo`` and the context benchmarks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.contract import ContextBudget, TaskContract, Verification
from harness.demo import session, workspace
from harness.loop import Run
from harness.policy import Policy, YesApprover
from harness.provider.scripted import ScriptedProvider
from harness.store import Store
from harness.types import Outcome

NAIVE_TOKEN_BUDGET = 10**10  # the baseline must not stop early: it is what we compare against


@dataclass(frozen=True)
class StepStat:
    step: int
    request_chars: int
    est_tokens: int
    ceiling: int
    carried: int
    stubbed: int
    reread: int


@dataclass(frozen=True)
class ScenarioResult:
    run_id: int
    outcome: Outcome
    spent_tokens: int
    steps: list[StepStat]
    requests: list[str]  # the user messages as sent

    @property
    def total_chars(self) -> int:
        return sum(s.request_chars for s in self.steps)

    @property
    def total_tokens(self) -> int:
        return sum(s.est_tokens for s in self.steps)


async def run_scenario(
    root: Path,
    store: Store,
    *,
    steps: int,
    naive: bool,
    budget: ContextBudget | None = None,
    token_budget: int | None = None,
    turns: list[dict[str, Any]] | None = None,
    create: bool = True,
) -> ScenarioResult:
    if create:
        workspace.create(root)
    holder: dict[str, Run] = {}

    def before_turn(index: int) -> None:
        # "The user" saves lexer.py in their editor; the server's didSave (or the watcher)
        # would report it — the demo reports it itself, deterministically.
        if index == session.DISK_EDIT_TURN and turns is None:
            path = root / session.DISK_EDIT_PATH
            path.write_text(session.user_edit(path.read_text()))
            holder["run"].notify_changed([path])

    provider = ScriptedProvider(
        turns if turns is not None else session.build_turns(steps), before_turn=before_turn
    )
    contract = (
        TaskContract.workspace(session.GOAL, root, Verification.command(session.TEST_ARGV))
        .with_max_steps(steps)
        .with_token_budget(token_budget or (NAIVE_TOKEN_BUDGET if naive else 400_000))
        .with_context_budget(budget or ContextBudget())
    )
    run = Run(
        contract,
        store=store,
        provider=provider,
        approver=YesApprover(),  # the demo approves its own scripted commands
        policy=Policy.load(root, user_config=None),
        naive_context=naive,
    )
    holder["run"] = run
    result = await run.execute()
    rows = store.run_steps(run.run_id)
    stats = [
        StepStat(
            step=row.step,
            request_chars=request.chars,
            est_tokens=row.est_tokens,
            ceiling=row.effective_tokens,
            carried=row.carried,
            stubbed=row.stubbed,
            reread=row.reread,
        )
        for row, request in zip(rows, provider.requests, strict=False)
    ]
    return ScenarioResult(
        run.run_id, result.outcome, result.spent_tokens, stats, [r.user for r in provider.requests]
    )
