"""The SQL of a run's writes (§5): the intent committed before a file is touched, the step's
commit confirming it, and reading a run's writes back for revert and ``filesChanged``.

An intent is an ``edits`` row with ``committed = 0``, written (and committed, in its own
transaction) before the write touches the disk; the step's commit turns each write it
reports into ``committed = 1`` — the announced row when there is one, so no bytes are written
twice, else a new row (a host that does not announce). An intent the step does not confirm
stays ``committed = 0``: revert then goes by what is on disk. File contents are stored as
they are, unredacted: revert must restore them byte for byte (secrets files are refused to
the agent by policy, so it never writes them).
"""

from __future__ import annotations

import json
import posixpath
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from harness.store.base import now_iso
from harness.store.connection import Connection
from harness.store.records import EditRow
from harness.types import FileWrite, normalize_path


def new_dirs(root: Path, rel: str) -> list[str]:
    """The directories (workspace-relative, outermost first) that writing ``rel`` under
    ``root`` will create because they do not exist yet."""
    parent = posixpath.dirname(posixpath.normpath(rel))
    missing: list[str] = []
    while parent and parent not in (".", "/") and not (root / parent).exists():
        missing.append(parent)
        parent = posixpath.dirname(parent)
    return missing[::-1]


def insert_intent(
    conn: Connection,
    run_id: int,
    step: int,
    path: str,
    *,
    before: bytes | None,
    after: bytes,
) -> None:
    row = conn.execute("SELECT workspace FROM runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise sqlite3.IntegrityError(f"no run {run_id}")
    path = normalize_path(path)  # as the step's edits will name it (``./a.py`` is ``a.py``)
    created = new_dirs(Path(row[0]), path)
    conn.execute(
        "INSERT INTO edits (run_id, step, path, before, after, created_at, committed, new_dirs)"
        " VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
        (run_id, step, path, before, after, now_iso(), json.dumps(created) if created else None),
    )


def confirm_edits(
    conn: Connection, run_id: int, step: int, edits: Sequence[FileWrite], now: str
) -> None:
    """The step's writes, reconciled with its intents: each confirms the first unconfirmed
    intent of the same path with the same bytes, or is recorded anew."""
    for e in edits:
        found = conn.execute(
            "SELECT id FROM edits WHERE run_id = ? AND step = ? AND path = ? AND committed = 0"
            " AND after = ? AND before IS NOT DISTINCT FROM ? ORDER BY id LIMIT 1",
            (run_id, step, e.path, e.after, e.before),
        ).fetchone()
        if found is not None:
            conn.execute("UPDATE edits SET committed = 1 WHERE id = ?", (found[0],))
        else:
            conn.execute(
                "INSERT INTO edits (run_id, step, path, before, after, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (run_id, step, e.path, e.before, e.after, now),
            )


def select_edits(conn: Connection, run_id: int) -> list[EditRow]:
    """Every write of the run, confirmed or not, in the order they were announced."""
    return [
        EditRow(
            step=r[0],
            path=r[1],
            before=r[2],
            after=r[3],
            committed=bool(r[4]),
            new_dirs=tuple(json.loads(r[5])) if r[5] else (),
        )
        for r in conn.execute(
            "SELECT step, path, before, after, committed, new_dirs FROM edits"
            " WHERE run_id = ? ORDER BY id",
            (run_id,),
        )
    ]


def files_changed(conn: Connection, run_id: int) -> list[str]:
    """The paths the run's committed steps wrote, in the order each was first written."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT path FROM edits WHERE run_id = ? AND committed = 1"
            " GROUP BY path ORDER BY min(id)",
            (run_id,),
        )
    ]


__all__ = ["confirm_edits", "files_changed", "insert_intent", "new_dirs", "select_edits"]
