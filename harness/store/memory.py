"""Durable memory in the store (§4): notes per workspace and global, caps and eviction by
evidence, pinned notes, recall rows, and the per-scope recall index kept current.

Scopes are given as a workspace path or ``"global"`` (see ``harness.memory.scope_key``).
A write with ``run_id=None`` is the operator's: it may replace, pin and delete pinned notes,
and its trace events are written at once with run and step NULL. A run's write returns its
events for the loop to commit with the step.

The index (``memory_index``) is updated in place by every change this store makes; a change
made through another connection (another process) is noticed through ``PRAGMA
data_version`` and the index is rebuilt — cheaply, because word sets are cached by content.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from harness.contract import MemoryLimits
from harness.memory.events import (
    clear_event,
    evict_event,
    forget_event,
    forget_missing_event,
    operator_event,
    refused_event,
    write_event,
)
from harness.memory.index import IndexedNote, ScopeIndex, WordCache
from harness.memory.notes import (
    KINDS,
    MemoryForgetResult,
    MemoryNote,
    MemoryRecall,
    MemoryUsage,
    MemoryWriteResult,
    SimilarNote,
)
from harness.memory.text import cap_value, check_key, clean_value, scope_key
from harness.store.memory_rows import (
    NOTE_COLUMNS,
    evict,
    insert_recall_rows,
    note_from_row,
    select_note,
    upsert,
)
from harness.store.trace import TraceStore, _insert_events


class MemoryStore(TraceStore):
    """Memory operations on top of the trace store."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(path)
        self._words = WordCache()
        self._indexes: dict[str, ScopeIndex] = {}
        self._generations = itertools.count(1)
        self._data_version = self._read_data_version()

    # -- reading ----------------------------------------------------------------------------

    def memory_list(self, ws: Path | str) -> list[MemoryNote]:
        """A scope's notes in store order (the order they were first written)."""
        rows = self._query(
            f"SELECT {NOTE_COLUMNS} FROM memory WHERE scope = ? ORDER BY id", (scope_key(ws),)
        )
        return [note_from_row(r) for r in rows]

    def memory_get(self, ws: Path | str, key: str) -> MemoryNote | None:
        row = self._query_one(
            f"SELECT {NOTE_COLUMNS} FROM memory WHERE scope = ? AND key = ?",
            (scope_key(ws), check_key(key)),
        )
        return note_from_row(row) if row else None

    def memory_usage(self, ws: Path | str) -> MemoryUsage:
        """How many notes and value characters a scope holds (to compare with its caps)."""
        key = scope_key(ws)
        row = self._query_one(
            "SELECT count(*), coalesce(sum(length(value)), 0), coalesce(sum(pinned), 0)"
            " FROM memory WHERE scope = ?",
            (key,),
        )
        assert row is not None
        return MemoryUsage(scope_key=key, entries=row[0], chars=row[1], pinned=row[2])

    def memory_recalls(self, run_id: int) -> list[MemoryRecall]:
        """Every recall row of a run: which note each step carried."""
        return [
            MemoryRecall(
                run_id=r["run_id"],
                step=r["step"],
                scope_key=r["scope"],
                key=r["key"],
                created_at=r["created_at"],
            )
            for r in self._query(
                "SELECT run_id, step, scope, key, created_at FROM memory_recalls"
                " WHERE run_id = ? ORDER BY id",
                (run_id,),
            )
        ]

    def memory_similar(self, ws: Path | str, key: str, value: str) -> list[SimilarNote]:
        """Other keys in the scope whose value overlaps ``value`` (Jaccard >= 0.6 of words)."""
        index = self.memory_index(ws)
        return [
            SimilarNote(key=n.key, value=n.value, jaccard=j)
            for n, j in index.similar(self._words(clean_value(value)), exclude_key=key.strip())
        ]

    def memory_index(self, ws: Path | str) -> ScopeIndex:
        """The scope's recall index, current with the database."""
        key = scope_key(ws)
        with self._lock:
            self._check_external()
            return self._index(key)

    # -- writing ----------------------------------------------------------------------------

    def memory_write(  # noqa: PLR0917 -- the §4 operator API is positional
        self,
        ws: Path | str,
        key: str,
        value: str,
        run_id: int | None,
        step: int | None,
        kind: str,
        *,
        limits: MemoryLimits | None = None,
        pinned: bool | None = None,
        similar: bool = True,
    ) -> MemoryWriteResult:
        """Write (or replace) a note, cap it, evict over the caps, report restatements.

        ``run_id=None`` is an operator write; a run's write of a pinned key is refused.
        ``pinned`` (operator only) sets the pin; None keeps it (new notes are unpinned).
        ``similar=False`` skips the restatement check.
        """
        limits = limits or MemoryLimits()
        scope = scope_key(ws)
        key = check_key(key)
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if not isinstance(value, str) or not value.strip():
            raise ValueError("a note's value must not be empty; to remove a note, forget it")
        operator = run_id is None
        if not operator and pinned is not None:
            raise ValueError("pinning is the operator's act; a run cannot pin a note")
        stored, truncated = cap_value(clean_value(value), limits.max_entry_chars)
        with self._lock, self._tx() as conn:
            self._check_external()
            index = self._index(scope)
            existing_row = select_note(conn, scope, key)
            existing = note_from_row(existing_row) if existing_row else None
            if existing is not None and existing.pinned and not operator:
                return MemoryWriteResult(
                    note=None,
                    refused="pinned",
                    existing=existing,
                    events=(refused_event(existing, "remember"),),
                )
            note = upsert(
                conn,
                scope=scope,
                key=key,
                value=stored,
                kind=kind,
                run_id=run_id,
                step=step,
                existing=existing,
                pinned=pinned,
            )
            evicted, reasons, over_cap = evict(conn, scope, note.id, limits)
            gone = {n.key for n in evicted}
            found: tuple[SimilarNote, ...] = ()
            if similar:
                found = tuple(
                    SimilarNote(key=n.key, value=n.value, jaccard=j)
                    for n, j in index.similar(self._words(stored), exclude_key=key)
                    if n.key not in gone
                )
            events = [
                write_event(
                    note,
                    replaced=existing is not None,
                    truncated=truncated,
                    original_chars=len(value),
                    similar=found,
                    operator=operator,
                )
            ]
            events += [evict_event(n, reasons[n.id], key) for n in evicted]
            if operator:
                _insert_events(conn, None, None, events)
        self._apply(index, note, evicted)
        return MemoryWriteResult(
            note=note,
            existing=existing,
            replaced=existing is not None,
            truncated=truncated,
            original_chars=len(value),
            evicted=tuple(evicted),
            similar=found,
            over_cap=over_cap,
            events=tuple(events),
        )

    def memory_forget(self, ws: Path | str, key: str, run_id: int, step: int) -> MemoryForgetResult:
        """A run withdraws a note: refused for a pinned note; says so for a missing one."""
        scope = scope_key(ws)
        key = check_key(key)
        with self._lock, self._tx() as conn:
            self._check_external()
            row = select_note(conn, scope, key)
            if row is None:
                return MemoryForgetResult(note=None, events=(forget_missing_event(scope, key),))
            note = note_from_row(row)
            if note.pinned:
                return MemoryForgetResult(
                    note=note, refused="pinned", events=(refused_event(note, "forget"),)
                )
            conn.execute("DELETE FROM memory WHERE id = ?", (note.id,))
        self._forget_in_index(scope, key)
        return MemoryForgetResult(note=note, events=(forget_event(note),))

    def memory_pin(self, ws: Path | str, key: str, pinned: bool) -> MemoryNote | None:
        """The operator pins (or unpins) a note; None when there is no such note."""
        scope = scope_key(ws)
        key = check_key(key)
        with self._lock, self._tx() as conn:
            self._check_external()
            conn.execute(
                "UPDATE memory SET pinned = ? WHERE scope = ? AND key = ?",
                (int(pinned), scope, key),
            )
            row = select_note(conn, scope, key)
            if row is None:
                return None
            note = note_from_row(row)
            _insert_events(conn, None, None, [operator_event("memory_pin", note)])
        self._apply(self._indexes.get(scope), note, ())
        return note

    def memory_delete(self, ws: Path | str, key: str) -> MemoryNote | None:
        """The operator deletes a note, pinned or not; returns it, or None if there was none."""
        scope = scope_key(ws)
        key = check_key(key)
        with self._lock, self._tx() as conn:
            self._check_external()
            row = select_note(conn, scope, key)
            if row is None:
                return None
            note = note_from_row(row)
            conn.execute("DELETE FROM memory WHERE id = ?", (note.id,))
            _insert_events(conn, None, None, [operator_event("memory_delete", note)])
        self._forget_in_index(scope, key)
        return note

    def memory_clear(self, ws: Path | str) -> int:
        """The operator removes every note of a scope, pinned ones too; returns how many."""
        scope = scope_key(ws)
        with self._lock, self._tx() as conn:
            self._check_external()
            keys = [r[0] for r in conn.execute("SELECT key FROM memory WHERE scope = ?", (scope,))]
            conn.execute("DELETE FROM memory WHERE scope = ?", (scope,))
            _insert_events(conn, None, None, [clear_event(scope, keys)])
            self._indexes.pop(scope, None)
        return len(keys)

    def _insert_recalls(
        self,
        conn: sqlite3.Connection,
        run_id: int,
        step: int,
        recalls: Sequence[tuple[str, str]],
    ) -> None:
        """One recall row per carried note, inside the step's transaction; the note's recall
        summary (count, distinct runs, last recall) moves with it."""
        new_runs = insert_recall_rows(conn, run_id, step, recalls)
        # The in-memory evidence moves now; should the step roll back, it is one run ahead
        # until the index is next rebuilt, which only nudges a tie-break in selection.
        for scope, key in new_runs:
            index = self._indexes.get(scope)
            if index is not None:
                index.add_run(key)

    # -- the index --------------------------------------------------------------------------

    def _read_data_version(self) -> int:
        with self._lock:
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def _check_external(self) -> None:
        """Drop every cached index when another connection has committed since we looked."""
        version = self._read_data_version()
        if version != self._data_version:
            self._data_version = version
            self._indexes.clear()

    def _index(self, scope: str) -> ScopeIndex:
        index = self._indexes.get(scope)
        if index is None:
            rows = self._conn.execute(
                "SELECT id, key, value, kind, pinned, run_id, seq, recall_runs FROM memory"
                " WHERE scope = ? ORDER BY id",
                (scope,),
            ).fetchall()
            index = ScopeIndex(
                scope, (self._indexed(r) for r in rows), generation=next(self._generations)
            )
            self._indexes[scope] = index
        return index

    def _indexed(self, row: sqlite3.Row | MemoryNote) -> IndexedNote:
        if isinstance(row, MemoryNote):
            id_, key, value, kind, pinned = row.id, row.key, row.value, row.kind, row.pinned
            run_id, seq, runs = row.run_id, row.seq, row.recall_runs
        else:
            id_, key, value, kind, pinned = row[0], row[1], row[2], row[3], bool(row[4])
            run_id, seq, runs = row[5], row[6], row[7]
        return IndexedNote.build(
            self._words,
            id=id_,
            key=key,
            value=value,
            operator_kind=kind if run_id is None else None,
            pinned=pinned,
            seq=seq,
            runs=runs,
        )

    def _apply(
        self, index: ScopeIndex | None, note: MemoryNote, evicted: Sequence[MemoryNote]
    ) -> None:
        if index is None or self._indexes.get(note.scope_key) is not index:
            return
        with self._lock:
            for gone in evicted:
                index.remove(gone.key)
            index.put(self._indexed(note))

    def _forget_in_index(self, scope: str, key: str) -> None:
        with self._lock:
            index = self._indexes.get(scope)
            if index is not None:
                index.remove(key)
