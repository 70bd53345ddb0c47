"""The SQL of durable memory that ``MemoryStore`` runs inside its transactions: reading a
note row, writing one, evicting in §4 order, and recording recall rows with the summary
columns (``recalls``, ``recall_runs``, ``last_recall``) that keep eviction one indexed query."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from harness.contract import MemoryLimits
from harness.memory.notes import MemoryNote
from harness.store.base import now_iso

NOTE_COLUMNS = (
    "id, scope, key, value, kind, pinned, run_id, step, seq, recalls, recall_runs,"
    " created_at, updated_at"
)
# Eviction order (§4): fewest distinct runs that recalled it, then least recently
# recalled (0 = never), then oldest written. Served by the memory_evict index.
EVICTION_ORDER = "recall_runs, last_recall, seq"


def note_from_row(r: sqlite3.Row) -> MemoryNote:
    return MemoryNote(
        id=r["id"],
        scope_key=r["scope"],
        key=r["key"],
        value=r["value"],
        kind=r["kind"],
        pinned=bool(r["pinned"]),
        run_id=r["run_id"],
        step=r["step"],
        seq=r["seq"],
        created_at=r["created_at"],
        updated_at=r["updated_at"],
        recalls=r["recalls"],
        recall_runs=r["recall_runs"],
    )


def select_note(conn: sqlite3.Connection, scope: str, key: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        f"SELECT {NOTE_COLUMNS} FROM memory WHERE scope = ? AND key = ?", (scope, key)
    ).fetchone()
    return row


def upsert(
    conn: sqlite3.Connection,
    *,
    scope: str,
    key: str,
    value: str,
    kind: str,
    run_id: int | None,
    step: int | None,
    existing: MemoryNote | None,
    pinned: bool | None,
) -> MemoryNote:
    seq = int(conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM memory").fetchone()[0])
    now = now_iso()
    if existing is None:
        conn.execute(
            "INSERT INTO memory (scope, key, value, kind, pinned, run_id, step, seq,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (scope, key, value, kind, int(bool(pinned)), run_id, step, seq, now, now),
        )
    else:
        keep_pin = existing.pinned if pinned is None else pinned
        conn.execute(
            "UPDATE memory SET value = ?, kind = ?, pinned = ?, run_id = ?, step = ?, seq = ?,"
            " updated_at = ? WHERE id = ?",
            (value, kind, int(keep_pin), run_id, step, seq, now, existing.id),
        )
    row = select_note(conn, scope, key)
    assert row is not None
    return note_from_row(row)


def evict(
    conn: sqlite3.Connection, scope: str, keep_id: int, limits: MemoryLimits
) -> tuple[list[MemoryNote], dict[int, str], bool]:
    """Evict in §4 order until the scope is within both caps; never ``keep_id`` (the note
    just written), never a pinned note. Returns the evicted notes, why each went, and
    whether the scope is still over a cap (everything left is pinned)."""
    entries, chars = conn.execute(
        "SELECT count(*), coalesce(sum(length(value)), 0) FROM memory WHERE scope = ?", (scope,)
    ).fetchone()
    if entries <= limits.max_entries and chars <= limits.max_chars:
        return [], {}, False
    cursor = conn.execute(
        f"SELECT {NOTE_COLUMNS} FROM memory WHERE scope = ? AND pinned = 0 AND id != ?"
        f" ORDER BY {EVICTION_ORDER}",
        (scope, keep_id),
    )
    evicted: list[MemoryNote] = []
    reasons: dict[int, str] = {}
    while entries > limits.max_entries or chars > limits.max_chars:
        row = cursor.fetchone()
        if row is None:
            break
        note = note_from_row(row)
        reasons[note.id] = "max_entries" if entries > limits.max_entries else "max_chars"
        evicted.append(note)
        entries -= 1
        chars -= len(note.value)
    cursor.close()
    conn.executemany("DELETE FROM memory WHERE id = ?", [(n.id,) for n in evicted])
    return evicted, reasons, entries > limits.max_entries or chars > limits.max_chars


def insert_recall_rows(
    conn: sqlite3.Connection, run_id: int, step: int, recalls: Sequence[tuple[str, str]]
) -> list[tuple[str, str]]:
    """Record that ``run_id``'s ``step`` carried each ``(scope, key)``; return the pairs this
    run recalled for the first time (their distinct-run count went up)."""
    pairs = list(dict.fromkeys(recalls))
    if not pairs:
        return []
    # Every note carried in this step shares one "last recalled" mark, larger than any
    # earlier step's: recalls in one step are simultaneous.
    mark = int(conn.execute("SELECT coalesce(max(id), 0) + 1 FROM memory_recalls").fetchone()[0])
    now = now_iso()
    new_runs: list[tuple[str, str]] = []
    for scope, key in pairs:
        row = conn.execute(
            "SELECT id FROM memory WHERE scope = ? AND key = ?", (scope, key)
        ).fetchone()
        note_id = int(row[0]) if row else None
        if note_id is not None:
            first = (
                conn.execute(
                    "SELECT 1 FROM memory_recalls WHERE note_id = ? AND run_id = ? LIMIT 1",
                    (note_id, run_id),
                ).fetchone()
                is None
            )
            conn.execute(
                "UPDATE memory SET recalls = recalls + 1, recall_runs = recall_runs + ?,"
                " last_recall = ? WHERE id = ?",
                (int(first), mark, note_id),
            )
            if first:
                new_runs.append((scope, key))
        conn.execute(
            "INSERT INTO memory_recalls (run_id, step, scope, key, note_id, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (run_id, step, scope, key, note_id, now),
        )
    return new_runs
