"""The SQL of durable memory: reading and writing note rows, the eviction candidates in
§4 order, deleting, and recall rows with the summary columns (``recalls``, ``recall_runs``,
``last_recall``) that keep eviction one indexed query. The rules that decide what to write
and what to evict are in ``harness.memory.rules``; this module only runs statements."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

from harness.memory.notes import MemoryNote, MemoryRecall, MemoryUsage
from harness.memory.recall import INDEX_COLUMNS, NoteRow
from harness.memory.rules import EVICTION_ORDER, NoteWrite
from harness.store.base import now_iso
from harness.store.connection import Connection
from harness.store.owner import author

NOTE_COLUMNS = (
    "id, scope, key, value, kind, pinned, run_id, step, seq, recalls, recall_runs,"
    " last_recall, created_at, updated_at, origin, author, author_path"
)


_NOTE_FIELDS = [c for c in NOTE_COLUMNS.replace(" ", "").split(",") if c not in ("scope", "pinned")]


def note_from_row(r: Any) -> MemoryNote:
    """A note from a row of ``NOTE_COLUMNS`` (``scope`` is its ``scope_key``)."""
    fields = {name: r[name] for name in _NOTE_FIELDS}
    return MemoryNote(scope_key=r["scope"], pinned=bool(r["pinned"]), **fields)


def select_note(conn: Connection, scope: str, key: str) -> MemoryNote | None:
    row = conn.execute(
        f"SELECT {NOTE_COLUMNS} FROM memory WHERE scope = ? AND key = ?", (scope, key)
    ).fetchone()
    return note_from_row(row) if row else None


def select_notes(conn: Connection, scope: str) -> list[MemoryNote]:
    """A scope's notes in store order (the order they were first written)."""
    rows = conn.execute(f"SELECT {NOTE_COLUMNS} FROM memory WHERE scope = ? ORDER BY id", (scope,))
    return [note_from_row(r) for r in rows]


def index_rows(conn: Connection, scope: str) -> list[NoteRow]:
    """What the recall index is built from, in store order."""
    rows = conn.execute(
        f"SELECT {INDEX_COLUMNS} FROM memory WHERE scope = ? ORDER BY id", (scope,)
    ).fetchall()
    return [NoteRow(*r) for r in rows]


def usage(conn: Connection, scope: str) -> MemoryUsage:
    row = conn.execute(
        "SELECT count(*), coalesce(sum(length(value)), 0), coalesce(sum(pinned), 0)"
        " FROM memory WHERE scope = ?",
        (scope,),
    ).fetchone()
    return MemoryUsage(scope_key=scope, entries=row[0], chars=row[1], pinned=row[2])


def size(conn: Connection, scope: str) -> tuple[int, int]:
    """A scope's notes and value characters (what its caps count)."""
    row = conn.execute(
        "SELECT count(*), coalesce(sum(length(value)), 0) FROM memory WHERE scope = ?", (scope,)
    ).fetchone()
    return int(row[0]), int(row[1])


def run_workspace(conn: Connection, run_id: int | None) -> str | None:
    """The workspace of run ``run_id`` as its row names it (None for none, or no such run)."""
    if run_id is None:
        return None
    row = conn.execute("SELECT workspace FROM runs WHERE id = ?", (run_id,)).fetchone()
    return str(row[0]) if row else None


def upsert(
    conn: Connection,
    w: NoteWrite,
    existing: MemoryNote | None,
    origin: str | None,
    where: str | None,
) -> MemoryNote:
    """Insert the note or replace the existing one in place (it keeps its id, so its place
    in store order; its write order ``seq`` moves to the newest). ``origin``: the workspace
    whose run wrote it (global notes), replaced with the writer. The writer (``user@host``)
    and ``where`` (the canonical path it wrote from) are recorded (§12)."""
    seq = int(conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM memory").fetchone()[0])
    now = now_iso()
    if existing is None:
        conn.execute(
            "INSERT INTO memory (scope, key, value, kind, pinned, run_id, step, seq,"
            " created_at, updated_at, origin, author, author_path)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                w.scope_key,
                w.key,
                w.value,
                w.kind,
                int(bool(w.pinned)),
                w.run_id,
                w.step,
                seq,
                now,
                now,
                origin,
                author(),
                where,
            ),
        )
    else:
        keep_pin = existing.pinned if w.pinned is None else w.pinned
        conn.execute(
            "UPDATE memory SET value = ?, kind = ?, pinned = ?, run_id = ?, step = ?, seq = ?,"
            " updated_at = ?, origin = ?, author = ?, author_path = ? WHERE id = ?",
            (
                w.value,
                w.kind,
                int(keep_pin),
                w.run_id,
                w.step,
                seq,
                now,
                origin,
                author(),
                where,
                existing.id,
            ),
        )
    note = select_note(conn, w.scope_key, w.key)
    assert note is not None
    return note


def eviction_candidates(
    conn: Connection, scope: str, keep_id: int
) -> Generator[MemoryNote, None, None]:
    """The scope's notes that may be evicted — the agent's: unpinned, kind ``fact`` — but
    ``keep_id``, in eviction order, read lazily (served by the ``memory_evict`` index: no
    sort)."""
    cursor = conn.execute(
        f"SELECT {NOTE_COLUMNS} FROM memory WHERE scope = ? AND pinned = 0 AND kind = 'fact'"
        " AND id != ?"
        f" ORDER BY {', '.join(EVICTION_ORDER)}",
        (scope, keep_id),
    )
    try:
        for row in cursor:
            yield note_from_row(row)
    finally:
        cursor.close()


def delete_notes(conn: Connection, ids: Sequence[int]) -> None:
    conn.executemany("DELETE FROM memory WHERE id = ?", [(i,) for i in ids])


def set_pin(conn: Connection, scope: str, key: str, pinned: bool) -> MemoryNote | None:
    conn.execute(
        "UPDATE memory SET pinned = ? WHERE scope = ? AND key = ?", (int(pinned), scope, key)
    )
    return select_note(conn, scope, key)


def delete_scope(conn: Connection, scope: str) -> list[str]:
    """Delete every note of a scope; return their keys in store order."""
    keys = [
        r[0] for r in conn.execute("SELECT key FROM memory WHERE scope = ? ORDER BY id", (scope,))
    ]
    conn.execute("DELETE FROM memory WHERE scope = ?", (scope,))
    return keys


def insert_recalls(
    conn: Connection, run_id: int, step: int, recalls: Sequence[tuple[str, str]]
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
    who, where = author(), run_workspace(conn, run_id)
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
            "INSERT INTO memory_recalls (run_id, step, scope, key, note_id, created_at,"
            " author, author_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, step, scope, key, note_id, now, who, where),
        )
    return new_runs


def select_recalls(conn: Connection, run_id: int) -> list[MemoryRecall]:
    return [
        MemoryRecall(
            run_id=r["run_id"],
            step=r["step"],
            scope_key=r["scope"],
            key=r["key"],
            created_at=r["created_at"],
        )
        for r in conn.execute(
            "SELECT run_id, step, scope, key, created_at FROM memory_recalls"
            " WHERE run_id = ? ORDER BY id",
            (run_id,),
        )
    ]


__all__ = [
    "NOTE_COLUMNS",
    "delete_notes",
    "delete_scope",
    "eviction_candidates",
    "index_rows",
    "insert_recalls",
    "note_from_row",
    "run_workspace",
    "select_note",
    "select_notes",
    "select_recalls",
    "set_pin",
    "size",
    "upsert",
    "usage",
]
