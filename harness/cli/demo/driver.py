"""Running a scripted session for real: a generated workspace, the real loop, tools, policy
and store, and a scripted model. Used by ``harness demo`` and the context benchmarks.

What each request cost is measured on the requests as sent (``Request.texts()``: the system
prompt, the frame, the memory block, every entry and the trailer; the tool schemas, the
same in every request of both runs, are left out): its characters, the characters it
shares from the start with the request before (§3 ``prefixChars``), and its cache-priced
cost (``pricing``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.cli.demo import session, workspace
from harness.cli.demo.pricing import cache_priced
from harness.context import Ceiling, shared_prefix_chars
from harness.contract import (
    DEFAULT_CONTEXT_MAX_TOKENS,
    DEFAULT_TOKEN_BUDGET,
    ContextBudgetOverrides,
    ContextWire,
    ContractOverrides,
    Verification,
)
from harness.ledger import Ledger
from harness.policy import Policy, YesApprover
from harness.provider.scripted import ScriptedProvider
from harness.run.session import Backend, RunRequest, build_contract, open_session
from harness.store import Store
from harness.tokens import CHARS_PER_TOKEN
from harness.types import PART_SEPARATOR, Outcome, Request

NAIVE_TOKEN_BUDGET = 10**10  # the baseline must not stop early: it is what we compare against
ANSWER_TOKENS = 2_000  # room per step for the model's answer, when sizing a budget


@dataclass(frozen=True)
class Scenario:
    """A scripted session: the workspace it runs in, its turns for ``steps`` steps, the
    goal and the verification, and what "the user" changes on disk before a turn (turn
    index → path and how its text changes)."""

    goal: str
    create: Callable[[Path], object]
    turns: Callable[[int], list[dict[str, Any]]]
    verify: tuple[str, ...]
    user_edits: Mapping[int, tuple[str, Callable[[str], str]]] = field(default_factory=dict)


DEMO = Scenario(
    goal=session.GOAL,
    create=workspace.create,
    turns=session.build_turns,
    verify=tuple(session.TEST_ARGV),
    user_edits={session.DISK_EDIT_TURN: (session.DISK_EDIT_PATH, session.user_edit)},
)


def bounded_budget(steps: int) -> int:
    """The token budget a bounded run of ``steps`` steps needs to finish at its full
    ceiling: the default, or more when each step at the ceiling would spend past it."""
    needed = steps * (DEFAULT_CONTEXT_MAX_TOKENS + ANSWER_TOKENS) + 2 * DEFAULT_CONTEXT_MAX_TOKENS
    return max(DEFAULT_TOKEN_BUDGET, needed)


@dataclass(frozen=True)
class StepStat:
    step: int
    request_chars: int  # the texts of the request as sent
    shared_chars: int  # of those, shared from the start with the request before
    est_tokens: int  # the harness's estimate of the whole request (tool schemas included)
    ceiling: int  # the effective budget, tokens
    carried: int
    stubbed: int
    reread: int
    breaks: tuple[str, ...] = ()

    @property
    def cost(self) -> float:
        """Cache-priced cost in input-token equivalents."""
        return cache_priced(self.request_chars, self.shared_chars) / CHARS_PER_TOKEN

    @property
    def slid(self) -> bool:
        return "slide" in self.breaks


@dataclass(frozen=True)
class ScenarioResult:
    run_id: int
    outcome: Outcome
    spent_tokens: int
    token_budget: int
    steps: list[StepStat]
    requests: list[Request]  # as sent
    fixed_chars: int  # what every request carries outside the ceiling: system, frame, schemas
    unchanged_rereads: int = 0  # re-reads (at the end) that showed the text the model held

    @property
    def over_ceiling(self) -> int:
        """Requests whose section (memory block, entries, trailer) exceeded the ceiling."""
        over = 0
        for stat, request in zip(self.steps, self.requests, strict=False):
            section = request.texts()[2:]  # after the system prompt and the frame
            chars = sum(map(len, section)) + len(PART_SEPARATOR) * max(0, len(section) - 1)
            over += chars > Ceiling(stat.ceiling).chars
        return over

    @property
    def total_chars(self) -> int:
        return sum(s.request_chars for s in self.steps)

    @property
    def total_shared(self) -> int:
        return sum(s.shared_chars for s in self.steps)

    @property
    def total_cost(self) -> float:
        return sum(s.cost for s in self.steps)

    @property
    def shared_share(self) -> float:
        return self.total_shared / max(1, self.total_chars)


async def run_scenario(
    root: Path,
    store: Store,
    *,
    steps: int,
    naive: bool,
    scenario: Scenario = DEMO,
    budget: ContextBudgetOverrides | None = None,
    token_budget: int | None = None,
    turns: list[dict[str, Any]] | None = None,
    create: bool = True,
    wire: ContextWire = "transcript",
) -> ScenarioResult:
    """One scripted run over ``root`` (generated unless ``create`` is False): the
    scenario's session (or ``turns``, and then no edits by "the user"), with the bounded
    context or the naive baseline."""
    if create:
        scenario.create(root)
    user = User(root, scenario.user_edits if turns is None else {})
    script = turns if turns is not None else scenario.turns(steps)
    provider = ScriptedProvider(script, before_turn=user.turn)
    given = token_budget or (NAIVE_TOKEN_BUDGET if naive else bounded_budget(steps))
    overrides = ContractOverrides(
        verification=Verification.command(scenario.verify),
        max_steps=steps,
        token_budget=given,
        context_budget=budget or ContextBudgetOverrides(),
        context_wire=wire,
    )
    started = await open_session(
        build_contract(scenario.goal, root, overrides),
        Backend(store=store, provider=provider, assembly="naive" if naive else "bounded"),
        RunRequest(approver=YesApprover(), policy=Policy.load(root, user_config=None)),
    )
    user.notify = started.run.notify_changed
    result = await started.execute()
    requests = provider.requests
    return ScenarioResult(
        started.run_id,
        result.end.outcome,
        result.end.spent_tokens,
        given,
        _stats(store, started.run_id, requests),
        requests,
        _fixed_chars(requests),
        _unchanged_rereads(started.run.ledger),
    )


class User:
    """ "The user", who saves files in their editor mid-run. The server's didSave (or the
    watcher) would report it; the demo reports it itself, deterministically."""

    def __init__(self, root: Path, edits: Mapping[int, tuple[str, Callable[[str], str]]]) -> None:
        self.root = root
        self.edits = edits
        self.notify: Callable[[list[Path]], int] | None = None

    def turn(self, index: int) -> None:
        if index not in self.edits:
            return
        rel, change = self.edits[index]
        path = self.root / rel
        path.write_text(change(path.read_text()))
        if self.notify is not None:
            self.notify([path])


def _stats(store: Store, run_id: int, requests: list[Request]) -> list[StepStat]:
    rows = store.run_steps(run_id)
    breaks: dict[int, tuple[str, ...]] = {}
    for event in store.context_events(run_id, "assembled"):
        breaks[event["step"]] = tuple(event["detail"]["breaks"])  # the last: what was sent
    out: list[StepStat] = []
    previous: list[str] = []
    for row, request in zip(rows, requests, strict=False):
        texts = request.texts()
        shared = shared_prefix_chars(previous, texts)
        out.append(
            StepStat(
                row.step,
                sum(map(len, texts)),
                shared,
                row.est_tokens,
                row.effective_tokens,
                row.counts.carried,
                row.counts.stubbed,
                row.counts.reread,
                breaks.get(row.step, ()),
            )
        )
        previous = texts
    return out


def _unchanged_rereads(ledger: Ledger) -> int:
    """Re-reads that re-sent the very text the model held (issue 12 target: none)."""
    observations = ledger.observations()
    count = 0
    for obs in observations:
        if obs.reread_of is not None and obs.read is not None:
            held = observations[obs.reread_of].read
            count += held is not None and held.shown_hash == obs.read.shown_hash
    return count


def _fixed_chars(requests: list[Request]) -> int:
    """The system prompt, the frame and the tool schemas (as the estimate counts them)."""
    if not requests:
        return 0
    first = requests[0]
    schemas = len(json.dumps([dict(t.parameters) for t in first.tools]))
    frame = first.messages[0].parts[0] if first.messages and first.messages[0].parts else ""
    return len(first.system) + len(frame) + schemas
