"""The SQL of run rows: starting a run (with the process that owns it), finishing it,
reading runs back, and marking the runs whose process died as ``interrupted`` (§5)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harness.redact import redact
from harness.store.base import now_iso
from harness.store.connection import Connection
from harness.store.owner import ProcessOwner, author, current_owner, is_gone
from harness.store.records import ConversationRow, RunRow
from harness.types import Outcome, RunEnd


def insert_run(
    conn: Connection,
    *,
    goal: str,
    workspace: str,
    provider: str,
    model: str,
    contract: str,
    conversation_id: int | None = None,
    mode: str = "code",
) -> int:
    """A run row; a follow-up of ``conversation_id`` takes the conversation's next turn, a
    first run is its own conversation at turn 1."""
    owner = current_owner()
    turn = 1
    if conversation_id is not None:
        row = conn.execute(
            "SELECT MAX(turn) FROM runs WHERE conversation_id = ?", (conversation_id,)
        ).fetchone()
        if row is None or row[0] is None:
            raise ValueError(f"no conversation {conversation_id}")
        turn = int(row[0]) + 1
    cur = conn.execute(
        "INSERT INTO runs (goal, workspace, provider, model, contract, started_at,"
        " owner_pid, owner_started, owner_host, conversation_id, turn, author, mode)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            redact(goal),
            workspace,
            provider,
            model,
            redact(contract),
            now_iso(),
            owner.pid,
            owner.started,
            owner.host,
            conversation_id,
            turn,
            author(),
            mode,
        ),
    )
    run_id = int(cur.fetchone()[0])
    if conversation_id is None:
        conn.execute("UPDATE runs SET conversation_id = id WHERE id = ?", (run_id,))
    return run_id


def finish_run(conn: Connection, run_id: int, end: RunEnd) -> None:
    error = redact(end.error) if end.error else end.error
    conn.execute(
        "UPDATE runs SET outcome = ?, steps = ?, spent_tokens = ?, error = ?,"
        " finished_at = ? WHERE id = ?",
        (end.outcome.value, end.steps, end.spent_tokens, error, now_iso(), run_id),
    )


def orphaned_runs(conn: Connection) -> list[tuple[int, ProcessOwner]]:
    """The unfinished runs whose owner process is gone. Runs of live processes, of other
    hosts, and rows from before owners were recorded are not among them."""
    rows = conn.execute(
        "SELECT id, owner_pid, owner_started, owner_host FROM runs"
        " WHERE outcome IS NULL AND owner_pid IS NOT NULL"
    ).fetchall()
    found = ((r[0], ProcessOwner(pid=r[1], host=r[3] or "", started=r[2])) for r in rows)
    return [(run_id, owner) for run_id, owner in found if is_gone(owner)]


def mark_interrupted(conn: Connection, run_id: int, owner: ProcessOwner) -> bool:
    """Set the run's outcome to ``interrupted`` (with an error saying why and what to do,
    and a ``run_interrupted`` event) unless it finished meanwhile."""
    error = (
        f"the process running it (pid {owner.pid} on {owner.host}) stopped before the run"
        f" finished; its committed steps are kept whole, and `harness revert {run_id}` undoes"
        " its writes"
    )
    now = now_iso()
    cur = conn.execute(
        "UPDATE runs SET outcome = ?, error = ?, finished_at = ? WHERE id = ? AND outcome IS NULL",
        (Outcome.INTERRUPTED.value, error, now, run_id),
    )
    if not cur.rowcount:
        return False
    conn.execute(
        "INSERT INTO context_events (run_id, step, kind, detail, created_at)"
        " VALUES (?, NULL, 'run_interrupted', ?, ?)",
        (run_id, json.dumps({"pid": owner.pid, "host": owner.host}), now),
    )
    return True


_RUN_FIELDS = ("goal", "workspace", "provider", "model", "outcome", "steps", "spent_tokens")
_RUN_TIMES = ("started_at", "finished_at", "error", "conversation_id", "turn", "author", "mode")


def run_row(r: Any) -> RunRow:
    fields = {name: r[name] for name in (*_RUN_FIELDS, *_RUN_TIMES)}
    return RunRow(run_id=r["id"], **fields, rewound=bool(r["rewound"]))


def mark_rewound(conn: Connection, run_ids: Sequence[int]) -> None:
    """Runs a checkpoint restore goes back to before of (issue 33): kept, never sent again."""
    for run_id in run_ids:
        conn.execute("UPDATE runs SET rewound = 1 WHERE id = ?", (run_id,))


def select_conversation(conn: Connection, conversation_id: int) -> list[RunRow]:
    rows = conn.execute(
        "SELECT * FROM runs WHERE conversation_id = ? ORDER BY turn, id", (conversation_id,)
    )
    return [run_row(r) for r in rows.fetchall()]


_WALK = 500  # runs read per batch while walking back for the newest conversations


def select_conversations(
    conn: Connection, workspaces: Sequence[str] | None, limit: int, before: int | None = None
) -> list[ConversationRow]:
    """The conversations whose first run is in one of ``workspaces`` (None: all), newest
    (by their latest run there) first. Walks the runs back from the newest in batches by
    the primary key (or ``runs_workspace``) and stops at ``limit`` conversations, so the
    answer costs what it shows, not the size of the store (issue 30: 1.7–5.2 s with 1M
    runs when every conversation was grouped to find the newest). ``before`` (a run id, the
    last row's ``last_run_id``): the next page — conversations whose newest run is older."""
    wanted = None if workspaces is None else set(workspaces)
    found: list[ConversationRow] = []
    seen: set[int] = set()
    cursor = before
    while len(found) < limit:
        batch = _runs_before(conn, workspaces, cursor)
        if not batch:
            break
        for _run, conversation in batch:
            if conversation in seen:
                continue
            seen.add(conversation)
            row = _conversation_row(conn, conversation, wanted)
            if row is not None and (before is None or row.last_run_id < before):
                found.append(row)
                if len(found) == limit:
                    break
        cursor = batch[-1][0]
    return found


def _runs_before(
    conn: Connection, workspaces: Sequence[str] | None, before: int | None
) -> list[tuple[int, int]]:
    """The next ``_WALK`` runs (id, conversation) of ``workspaces``, newest first, older than
    ``before``."""
    where: list[str] = []
    args: list[object] = []
    if workspaces is not None:
        where.append(f"workspace IN ({', '.join('?' for _ in workspaces)})")
        args += workspaces
    if before is not None:
        where.append("id < ?")
        args.append(before)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    rows = conn.execute(
        f"SELECT id, COALESCE(conversation_id, id) FROM runs {clause} ORDER BY id DESC LIMIT ?",
        (*args, _WALK),
    ).fetchall()
    return [(int(r[0]), int(r[1])) for r in rows]


def _conversation_row(
    conn: Connection, conversation: int, wanted: set[str] | None
) -> ConversationRow | None:
    """The conversation's row, None when its first run is not in ``wanted`` workspaces."""
    first = conn.execute(
        "SELECT goal, started_at, workspace FROM runs WHERE id = ?", (conversation,)
    ).fetchone()
    if first is None or (wanted is not None and first[2] not in wanted):
        return None
    count, spent, last = conn.execute(
        "SELECT COUNT(id), SUM(spent_tokens), MAX(id) FROM runs WHERE conversation_id = ?",
        (conversation,),
    ).fetchone()
    outcome, finished = conn.execute(
        "SELECT outcome, finished_at FROM runs WHERE id = ?", (last or conversation,)
    ).fetchone()
    goal, started = first[0], first[1]
    return ConversationRow(
        conversation,
        goal,
        int(count or 1),
        outcome,
        int(spent or 0),
        started,
        finished,
        int(last or conversation),
    )


def latest_run(conn: Connection, workspace: str) -> int | None:
    row = conn.execute("SELECT MAX(id) FROM runs WHERE workspace = ?", (workspace,)).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def save_context(conn: Connection, run_id: int, step: int, state: str) -> None:
    """Replace the run's context snapshot (portable SQL: no upsert)."""
    conn.execute("DELETE FROM run_context WHERE run_id = ?", (run_id,))
    conn.execute(
        "INSERT INTO run_context (run_id, step, state) VALUES (?, ?, ?)", (run_id, step, state)
    )


def select_context(conn: Connection, run_id: int) -> str | None:
    row = conn.execute("SELECT state FROM run_context WHERE run_id = ?", (run_id,)).fetchone()
    return None if row is None else str(row[0])


def select_runs(conn: Connection, limit: int, workspace: str | None = None) -> list[RunRow]:
    if workspace is None:
        rows = conn.execute("SELECT * FROM runs ORDER BY id DESC LIMIT ?", (limit,))
    else:
        rows = conn.execute(
            "SELECT * FROM runs WHERE workspace = ? ORDER BY id DESC LIMIT ?", (workspace, limit)
        )
    return [run_row(r) for r in rows.fetchall()]


def select_run(conn: Connection, run_id: int) -> RunRow | None:
    row = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
    return run_row(row) if row else None


__all__ = [
    "finish_run",
    "insert_run",
    "latest_run",
    "mark_interrupted",
    "mark_rewound",
    "orphaned_runs",
    "run_row",
    "save_context",
    "select_context",
    "select_conversation",
    "select_conversations",
    "select_run",
    "select_runs",
]
