"""The store's schema as an ordered list of migrations; ``PRAGMA user_version`` is the
number applied (on PostgreSQL, ``harness_schema.version``: ``harness.store.postgres``).
Append new migrations at the end; never edit one that has shipped."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from harness.store.connection import Connection
from harness.workspace.identity import workspace_key

_COLUMN = ",\n        "  # a column a line, as the literal tables are written


def _step_rows(
    table: str,
    columns: str,
    *,
    stamped: bool = True,
    outside: bool = False,
    index: str = "run_id, step",
) -> str:
    """The script of a table of rows that belong to a step of a run: an id, the run (its rows
    go with it) and the step, then ``columns``, then (``stamped``) when the row was written;
    indexed by ``index``. ``outside``: a row may belong to no run and no step.

    Shipped migrations are written with it, so what it writes must never change
    (``tests/harness/store/test_schema_pinned.py`` holds it to that)."""
    owner = "" if outside else " NOT NULL"
    lines = [
        "id INTEGER PRIMARY KEY",
        f"run_id INTEGER{owner} REFERENCES runs(id) ON DELETE CASCADE",
        f"step INTEGER{owner}",
        columns.strip(),
        *(["created_at TEXT NOT NULL"] if stamped else []),
    ]
    return (
        f"CREATE TABLE {table} (\n        {_COLUMN.join(lines)}\n    );\n"
        f"    CREATE INDEX {table}_run ON {table}({index});\n"
    )


# Portable workspace identity and authorship (§4, §12; "8" in the branches' contract).
# Notes are keyed by a workspace's portable identity (harness.workspace.identity), no longer
# by its canonical path: ``rekey_workspaces`` moves, in the same transaction, the notes of
# every path scope that is on this machine to the identity of that folder, so they stay
# reachable. Who (``user@host``) and where (the canonical path) a run, a note and a recall
# came from.
IDENTITY = """
    ALTER TABLE runs ADD COLUMN author TEXT;
    ALTER TABLE memory ADD COLUMN author TEXT;
    ALTER TABLE memory ADD COLUMN author_path TEXT;
    ALTER TABLE memory_recalls ADD COLUMN author TEXT;
    ALTER TABLE memory_recalls ADD COLUMN author_path TEXT;
    """

# Plan mode, checkpoints and review of a conversation's changes (§11, issue 33): a run's
# ``mode`` (``code`` or ``plan``) and whether a checkpoint restore rewound it (kept, never
# sent again); each keep or undo of a hunk is a row (latest wins), ``hunk_id`` the hunk's
# stable id (``harness.revert.hunks``), ``left_content`` the file's bytes an undo left (so a later
# file revert knows them as the agent's, not the user's).
HUNK_REVIEWS = """
    ALTER TABLE runs ADD COLUMN mode TEXT NOT NULL DEFAULT 'code';
    ALTER TABLE runs ADD COLUMN rewound INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE hunk_reviews (
        id INTEGER PRIMARY KEY,
        conversation_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        hunk_id TEXT NOT NULL,
        state TEXT NOT NULL,
        left_content BLOB,
        created_at TEXT NOT NULL
    );
    CREATE INDEX hunk_reviews_key ON hunk_reviews(conversation_id, path, hunk_id);
    """

MIGRATIONS: list[str] = [
    # 1: runs and the full trace
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        goal TEXT NOT NULL,
        workspace TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        contract TEXT NOT NULL,
        outcome TEXT,
        steps INTEGER NOT NULL DEFAULT 0,
        spent_tokens INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        started_at TEXT NOT NULL,
        finished_at TEXT
    );
    CREATE INDEX runs_workspace ON runs(workspace, id);
    CREATE TABLE steps (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        decision TEXT NOT NULL,
        content TEXT NOT NULL DEFAULT '',
        prompt TEXT NOT NULL,
        tool_calls TEXT NOT NULL,
        result TEXT NOT NULL,
        effective_tokens INTEGER NOT NULL,
        est_tokens INTEGER NOT NULL,
        reported_prompt_tokens INTEGER,
        completion_tokens INTEGER,
        total_tokens INTEGER,
        carried INTEGER NOT NULL DEFAULT 0,
        stubbed INTEGER NOT NULL DEFAULT 0,
        reread INTEGER NOT NULL DEFAULT 0,
        recalled INTEGER NOT NULL DEFAULT 0,
        started_at TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        PRIMARY KEY (run_id, step)
    );
    """
    + _step_rows(
        "observations",
        """
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        target TEXT NOT NULL,
        ok INTEGER NOT NULL,
        text TEXT NOT NULL,
        content_hash TEXT""",
        stamped=False,
    )
    + _step_rows(
        "provider_calls",
        """
        attempt INTEGER NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        total_tokens INTEGER,
        cache_read_tokens INTEGER,
        cache_write_tokens INTEGER,
        usage_estimated INTEGER NOT NULL DEFAULT 0,
        latency_ms REAL NOT NULL,
        ttft_ms REAL,
        status INTEGER,
        finish_reason TEXT,
        failure TEXT,
        error TEXT""",
    )
    # a context event may belong to no step (an operator's memory act, a run's end)
    + _step_rows(
        "context_events",
        """
        kind TEXT NOT NULL,
        detail TEXT NOT NULL""",
        outside=True,
    )
    + _step_rows(
        "policy_events",
        """
        act TEXT NOT NULL,
        target TEXT NOT NULL,
        effect TEXT NOT NULL,
        rule TEXT,
        layer TEXT NOT NULL,
        allowed INTEGER NOT NULL,
        detail TEXT NOT NULL""",
    )
    + _step_rows(
        "edits",
        """
        path TEXT NOT NULL,
        before BLOB,
        after BLOB NOT NULL""",
        index="run_id, id",
    ),
    # 2: durable memory (§4). `scope` is a workspace's canonical path or 'global'. `seq` is
    # the write order; `recalls`, `recall_runs` (distinct runs) and `last_recall` (the
    # memory_recalls id of the step that last carried it) summarise memory_recalls so that
    # eviction is one indexed query. Recall rows outlive their note (note_id becomes NULL).
    """
    CREATE TABLE memory (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('fact', 'decision')),
        pinned INTEGER NOT NULL DEFAULT 0,
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        step INTEGER,
        seq INTEGER NOT NULL,
        recalls INTEGER NOT NULL DEFAULT 0,
        recall_runs INTEGER NOT NULL DEFAULT 0,
        last_recall INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (scope, key)
    );
    CREATE INDEX memory_seq ON memory(seq);
    CREATE INDEX memory_evict ON memory(scope, pinned, recall_runs, last_recall, seq);
    """
    + _step_rows(
        "memory_recalls",
        """
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        note_id INTEGER REFERENCES memory(id) ON DELETE SET NULL""",
    )
    + """
    CREATE INDEX memory_recalls_note ON memory_recalls(note_id, run_id);
    CREATE INDEX memory_recalls_key ON memory_recalls(scope, key);
    """,
    # 3: crash consistency (§5). A run records the process that owns it (pid, its start as
    # "<boot id>:<start time in clock ticks>" from /proc, host name), so a store opened later
    # can tell a run whose process died (marked interrupted) from one still going. An edit
    # row is written before the file is (committed = 0, an intent) and confirmed by the
    # step's commit (committed = 1); new_dirs lists, as JSON, the directories the write
    # was going to create, so revert can remove them again.
    """
    ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
    ALTER TABLE runs ADD COLUMN owner_started TEXT;
    ALTER TABLE runs ADD COLUMN owner_host TEXT;
    CREATE INDEX runs_unfinished ON runs(id) WHERE outcome IS NULL;
    ALTER TABLE edits ADD COLUMN committed INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE edits ADD COLUMN new_dirs TEXT;
    CREATE INDEX edits_announced ON edits(run_id, step, path) WHERE committed = 0;
    """,
    # 4: the characters of a step's request shared with the previous request (§8.1
    # prefixChars), computed by the loop; NULL when it was not measured.
    """
    ALTER TABLE steps ADD COLUMN prefix_chars INTEGER;
    """,
    # 5: where a global note came from (§4): the workspace of the run that wrote it, named
    # when the note is recalled in any workspace; NULL for the user's notes. Notes written
    # before take it from their run's row, while that run is still in the store.
    """
    ALTER TABLE memory ADD COLUMN origin TEXT;
    UPDATE memory SET origin = (SELECT workspace FROM runs WHERE runs.id = memory.run_id)
        WHERE scope = 'global' AND run_id IS NOT NULL;
    """,
    # 6: conversations (§11). A run belongs to a conversation (the id of its first run) at a
    # turn (1 for the first run); runs from before are each their own conversation. A run's
    # context snapshot (the ledger and what its last request sent, JSON) is replaced at each
    # committed step, so a follow-up — in another process, after a crash — continues it.
    """
    ALTER TABLE runs ADD COLUMN conversation_id INTEGER;
    ALTER TABLE runs ADD COLUMN turn INTEGER NOT NULL DEFAULT 1;
    UPDATE runs SET conversation_id = id WHERE conversation_id IS NULL;
    CREATE INDEX runs_conversation ON runs(conversation_id, turn);
    CREATE TABLE run_context (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        state TEXT NOT NULL
    );
    """,
    # 7: a run's §11 events as its clients saw them, in ``seq``
    # order per run; ``detail`` is the event's JSON object, redacted, a step's ``text``
    # deltas merged into one event (``harness.run.events``). Step 0 is before the first step.
    _step_rows(
        "run_events",
        """
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        detail TEXT NOT NULL""",
        index="run_id, seq",
    ),
    IDENTITY,
    HUNK_REVIEWS,
]


def rekey_workspaces(conn: Connection) -> None:
    """Move the notes of each workspace scope still keyed by a canonical path to that
    folder's portable identity — when the folder is on this machine and has one. A key the
    identity's scope holds already (two checkouts of one repository, both with notes) stays
    under the path, where it was: nothing is lost."""
    scopes = [r[0] for r in conn.execute("SELECT DISTINCT scope FROM memory").fetchall()]
    for old in scopes:
        if not old.startswith("/") or not Path(old).is_dir():
            continue
        new = workspace_key(Path(old))
        if new == old:
            continue
        conn.execute(
            "UPDATE memory SET scope = ? WHERE scope = ?"
            " AND key NOT IN (SELECT key FROM memory WHERE scope = ?)",
            (new, old, new),
        )
        conn.execute(
            "UPDATE memory_recalls SET scope = ? WHERE scope = ? AND note_id IN"
            " (SELECT id FROM memory WHERE scope = ?)",
            (new, old, new),
        )


# What a migration does besides its SQL, in the same transaction (keyed by its script).
AFTER: dict[str, Callable[[Connection], None]] = {IDENTITY: rekey_workspaces}


def apply_migration(conn: Connection, script: str, ddl: Callable[[str], str] = str) -> None:
    """One migration's statements (as ``ddl`` translates them), then what ``AFTER`` adds."""
    for statement in statements(ddl(script)):
        conn.execute(statement)
    after = AFTER.get(script)
    if after is not None:
        after(conn)


def schema_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the migrations not yet applied, each in its own transaction; return the version.
    Applying twice is a no-op, and so is racing another process: the version is read again
    inside each write transaction (``BEGIN IMMEDIATE`` holds the write lock), so a migration
    another process applied meanwhile is never applied again."""
    current = _checked_version(conn)
    while current < len(MIGRATIONS):
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = _checked_version(conn)
            if current < len(MIGRATIONS):
                apply_migration(conn, MIGRATIONS[current])
                current += 1
                conn.execute(f"PRAGMA user_version = {current}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return schema_version(conn)


def _checked_version(conn: sqlite3.Connection) -> int:
    current = schema_version(conn)
    if current > len(MIGRATIONS):
        raise RuntimeError(
            f"store schema version {current} is newer than this harness ({len(MIGRATIONS)})"
        )
    return current


def statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


__all__ = [
    "AFTER",
    "MIGRATIONS",
    "apply_migration",
    "migrate",
    "rekey_workspaces",
    "schema_version",
    "statements",
]
