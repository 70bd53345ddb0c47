"""Step records for tests that commit steps without running a model: a bare step (for what a
step carries: recall rows, events, edits) committed the way the loop does, and the token
fields of a run of equal steps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.store import StepRecord, Store
from harness.types import FileWrite, TraceEvent


def bare_step(run_id: int, step: int, **fields: Any) -> StepRecord:
    """A ``finish`` step with no prompt, calls, result or reported tokens, but the ``fields``
    given."""
    bare: dict[str, Any] = dict(
        run_id=run_id,
        step=step,
        decision="finish",
        content="",
        prompt=[],
        tool_calls=[],
        result="",
        effective_tokens=1,
        est_tokens=1,
        reported_prompt_tokens=None,
        completion_tokens=None,
        total_tokens=None,
        started_at="2026-01-01T00:00:00Z",
        spent_tokens=0,
    )
    return StepRecord(**(bare | fields))


def token_fields(
    step: int, *, est: int, reported: int, completion: int, budget: int = 24_000
) -> dict[str, Any]:
    """The token fields of the ``step``-th of equal steps: each reports ``reported`` prompt
    and ``completion`` tokens, so the run has spent ``step`` times their total."""
    total = reported + completion
    return dict(
        effective_tokens=budget,
        est_tokens=est,
        reported_prompt_tokens=reported,
        completion_tokens=completion,
        total_tokens=total,
        spent_tokens=total * step,
    )


def commit_bare_step(
    store: Store,
    run_id: int,
    step: int,
    *,
    recalls: Sequence[tuple[str, str]] = (),
    events: Sequence[TraceEvent] = (),
    edits: Sequence[FileWrite] = (),
) -> None:
    store.commit_step(
        bare_step(run_id, step, events=tuple(events), recalls=tuple(recalls), edits=tuple(edits))
    )
