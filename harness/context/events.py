"""The trace events of rule 3 (§3): one per re-read, one per refused re-read."""

from __future__ import annotations

from harness.context.refresh import Refused
from harness.ledger import Observation, Refresh
from harness.types import TraceEvent


def reread_event(obs: Observation, refresh: Refresh) -> TraceEvent:
    return TraceEvent(
        "reread",
        {
            "path": obs.target,
            "readStep": obs.step,
            "invalidatedBy": refresh.invalidated_by.describe(),
            "chars": len(refresh.text),
            "hash": refresh.content_hash,
        },
    )


def refused_event(obs: Observation, refused: Refused, step: int) -> TraceEvent:
    return TraceEvent(
        "reread_refused",
        {
            "path": obs.target,
            "readStep": obs.step,
            "invalidatedBy": refused.change.describe(),
            "reason": refused.reason,
            "step": step,
        },
    )
