"""The trace events of rule 3 (§3): one per refresh, one per refresh that failed."""

from __future__ import annotations

from harness.context.state import Unrefreshed
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


def refused_event(obs: Observation, refused: Unrefreshed, step: int) -> TraceEvent:
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
