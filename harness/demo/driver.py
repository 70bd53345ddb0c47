"""Running the demo session for real: a generated workspace, the real loop, tools, policy
and store, and a scripted model. Used by ``harness demo`` and the context benchmarks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.contract import (
    DEFAULT_TOKEN_BUDGET,
    ContextBudgetOverrides,
    ContractOverrides,
    Verification,
)
from harness.demo import session, workspace
from harness.policy import Policy, YesApprover
from harness.provider.scripted import ScriptedProvider
from harness.session import build_contract, open_session
from harness.store import StepRow, Store
from harness.types import Outcome, Request

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
    budget: ContextBudgetOverrides | None = None,
    token_budget: int | None = None,
    turns: list[dict[str, Any]] | None = None,
    create: bool = True,
) -> ScenarioResult:
    """One scripted run over ``root`` (generated unless ``create`` is False): the demo's
    session, or ``turns``; with the bounded context or the naive baseline."""
    if create:
        workspace.create(root)
    user = _User(root, save_mid_run=turns is None)
    provider = ScriptedProvider(
        turns if turns is not None else session.build_turns(steps), before_turn=user.turn
    )
    overrides = ContractOverrides(
        verification=Verification.command(session.TEST_ARGV),
        max_steps=steps,
        token_budget=token_budget or (NAIVE_TOKEN_BUDGET if naive else DEFAULT_TOKEN_BUDGET),
        context_budget=budget or ContextBudgetOverrides(),
    )
    started = await open_session(
        build_contract(session.GOAL, root, overrides),
        store=store,
        provider=provider,
        approver=YesApprover(),  # the demo approves its own scripted commands
        policy=Policy.load(root, user_config=None),
        assembly="naive" if naive else "bounded",
    )
    user.notify = started.run.notify_changed
    result = await started.execute()
    requests = provider.requests
    return ScenarioResult(
        started.run_id,
        result.outcome,
        result.spent_tokens,
        _stats(store.run_steps(started.run_id), requests),
        [r.user for r in requests],
    )


class _User:
    """ "The user", who saves lexer.py in their editor mid-run. The server's didSave (or the
    watcher) would report it; the demo reports it itself, deterministically."""

    def __init__(self, root: Path, *, save_mid_run: bool) -> None:
        self.root = root
        self.save_mid_run = save_mid_run
        self.notify: Callable[[list[Path]], int] | None = None

    def turn(self, index: int) -> None:
        if index != session.DISK_EDIT_TURN or not self.save_mid_run:
            return
        path = self.root / session.DISK_EDIT_PATH
        path.write_text(session.user_edit(path.read_text()))
        if self.notify is not None:
            self.notify([path])


def _stats(rows: list[StepRow], requests: list[Request]) -> list[StepStat]:
    return [
        StepStat(r.step, q.chars, r.est_tokens, r.effective_tokens, r.carried, r.stubbed, r.reread)
        for r, q in zip(rows, requests, strict=False)
    ]
