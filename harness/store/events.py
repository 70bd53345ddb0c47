"""The SQL of a run's §11 events (``run_events``): one row per event as its clients saw
it (a step's ``text`` deltas merged), read back in order."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from harness.redact import redact
from harness.store.base import now_iso
from harness.store.connection import Connection


def insert_run_event(conn: Connection, run_id: int, step: int, event: Mapping[str, Any]) -> None:
    """``event`` (its JSON object, with ``seq`` and ``kind``), redacted of every key."""
    conn.execute(
        "INSERT INTO run_events (run_id, step, seq, kind, detail, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (
            run_id,
            step,
            int(event["seq"]),
            str(event["kind"]),
            redact(json.dumps(event, ensure_ascii=False)),
            now_iso(),
        ),
    )


def select_run_events(
    conn: Connection, run_ids: Sequence[int], after: int | None = None, limit: int = -1
) -> list[dict[str, Any]]:
    """The events of ``run_ids`` (in that order), each run's in ``seq`` order; ``after``:
    only those whose ``seq`` is greater; ``limit``: at most that many per run (-1: all)."""
    out: list[dict[str, Any]] = []
    for run_id in run_ids:
        rows = conn.execute(
            "SELECT detail FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq"
            + (" LIMIT ?" if limit >= 0 else ""),
            (run_id, -1 if after is None else after, *((limit,) if limit >= 0 else ())),
        ).fetchall()
        out += [json.loads(row[0]) for row in rows]
    return out


__all__ = ["insert_run_event", "select_run_events"]
