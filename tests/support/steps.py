"""Committing a bare step the way the loop does, for tests of what a step carries (recall
rows, events, edits) without running a model."""

from __future__ import annotations

from collections.abc import Sequence

from harness.store import StepRecord, Store
from harness.types import FileWrite, TraceEvent


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
        StepRecord(
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
            events=tuple(events),
            recalls=tuple(recalls),
            edits=tuple(edits),
        )
    )
