"""Committing a bare step the way the loop does, for tests of what a step carries (recall
rows, events, edits) without running a model; ``bare_step`` builds one for tests that fill
in more of it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.store import StepRecord, Store
from harness.types import FileWrite, TraceEvent


def bare_step(run_id: int, step: int, **fields: Any) -> StepRecord:
    """A ``finish`` step with no prompt, calls, result or reported usage, but the ``fields``
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
        started_at="2026-01-01T00:00:00Z",
        spent_tokens=0,
    )
    return StepRecord(**(bare | fields))


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
