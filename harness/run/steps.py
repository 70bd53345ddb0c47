"""What a completed step leaves behind: the ``StepRecord`` the store commits in one
transaction (§5), the ``StepSummary`` a host shows (§7), and the step's decision line.

Pure functions over a ``StepDone`` value; the loop builds it, the store and the observers
read what these return.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.ledger import Observation
from harness.report import RunInfo, StepSummary
from harness.run.assembly import Assembled
from harness.run.toolbox import MAX_CALLS_PER_TURN, label
from harness.store import ObservationRecord, StepRecord
from harness.types import Reply, ToolResult, TraceEvent


@dataclass(frozen=True)
class StepDone:
    """One step, done: the request, the answer, what the tools returned."""

    step: int
    started_at: str
    turn: Assembled
    reply: Reply
    results: tuple[ToolResult, ...]
    observations: tuple[Observation, ...]  # the ledger entries of ``results``
    verified: bool | None = None  # the verification's verdict, when it ran this step
    spent: int = 0  # the run's tokens after this step


def decision(reply: Reply, verified: bool | None) -> str:
    """``read a.py; grep TODO``, or ``stop → verify passed``, or ``stop``."""
    if reply.tool_calls:
        ran = "; ".join(label(c) for c in reply.tool_calls[:MAX_CALLS_PER_TURN])
        skipped = len(reply.tool_calls) - MAX_CALLS_PER_TURN
        return f"{ran}; (+{skipped:,} not run)" if skipped > 0 else ran
    if verified is not None:
        return f"stop → verify {'passed' if verified else 'failed'}"
    return "stop"


def step_record(
    run_id: int, done: StepDone, earlier: Sequence[TraceEvent], context: str | None = None
) -> StepRecord:
    """The step as the store keeps it; ``earlier`` are events noted since the last step
    (changes on disk); ``context``: the run's context snapshot after it (§11)."""
    turn, reply, results = done.turn, done.reply, done.results
    return StepRecord(
        run_id=run_id,
        step=done.step,
        decision=decision(reply, done.verified),
        content=reply.content,
        prompt=turn.request.messages_json(),
        tool_calls=[{"name": c.name, "arguments": dict(c.arguments)} for c in reply.tool_calls],
        result="\n\n".join(r.text for r in results),
        effective_tokens=turn.effective,
        est_tokens=turn.emission.est_tokens,
        started_at=done.started_at,
        spent_tokens=done.spent,
        usage=reply.usage,
        counts=turn.emission.counts(len(turn.recalled)),
        observations=[_observation(o) for o in done.observations],
        events=[*earlier, *turn.events, *(e for r in results for e in r.events)],
        policy=[p for r in results for p in r.policy],
        edits=[w for r in results for w in r.writes],
        recalls=turn.recalled,
        prefix_chars=turn.emission.prefix_chars,
        context=context,
    )


def step_summary(run: RunInfo, done: StepDone) -> StepSummary:
    """The ``harness/budget`` values after the step."""
    turn, usage = done.turn, done.reply.usage
    return StepSummary(
        run_id=run.run_id,
        step=done.step,
        max_steps=run.max_steps,
        spent_tokens=done.spent,
        token_budget=run.token_budget,
        request_tokens=turn.emission.est_tokens,
        context_ceiling=turn.effective,
        reported_prompt_tokens=usage.prompt_tokens,
        cached_prompt_tokens=usage.cache_read_tokens,
        prefix_chars=turn.emission.prefix_chars,
        counts=turn.emission.counts(len(turn.recalled)),
    )


def _observation(o: Observation) -> ObservationRecord:
    return ObservationRecord(
        o.seq, o.kind, o.target, o.ok, o.text, o.read.content_hash if o.read else None
    )


__all__ = ["StepDone", "decision", "step_record", "step_summary"]
