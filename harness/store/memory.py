"""Durable memory's operations in the store (§4): each is one transaction that reads rows
(``harness.store.notes``), asks the rules (``harness.memory.rules``), applies their verdict,
and tells the recall index (``harness.memory.recall``) what changed.

Scopes are given as a workspace path or ``"global"`` (``harness.memory.scope_key``). A write
with ``run_id=None`` is the operator's: it may replace, pin and delete pinned notes, and its
trace events are written at once with run and step NULL. A run's write returns its events
for the loop to commit with the step. Keys and values are redacted before they are checked,
capped and stored (§6.7).
"""

from __future__ import annotations

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
from harness.memory.index import ScopeIndex
from harness.memory.notes import MemoryForgetResult, MemoryNote, MemoryWriteResult, SimilarNote
from harness.memory.recall import RecallIndex
from harness.memory.rules import (
    EvictionPlan,
    NoteWrite,
    plan_evictions,
    refusal,
    restatements,
)
from harness.memory.text import GLOBAL, check_key
from harness.redact import redact
from harness.store.connection import Connection, Database
from harness.store.notes import (
    delete_notes,
    delete_scope,
    eviction_candidates,
    index_rows,
    run_workspace,
    select_note,
    set_pin,
    size,
    upsert,
)
from harness.store.steps import insert_events


def scope_index(db: Database, recall: RecallIndex, scope: str) -> ScopeIndex:
    """The scope's recall index, current with the database (call under ``db.lock``)."""
    recall.sync(db.data_version())
    return recall.scope(scope, lambda: index_rows(db.conn, scope))


def write_note(
    db: Database,
    recall: RecallIndex,
    w: NoteWrite,
    *,
    limits: MemoryLimits,
    similar: bool,
    where: str | None = None,
) -> MemoryWriteResult:
    """Write (or replace) a checked note, evict over the caps, report restatements; a run's
    write of the user's key (pinned, or written by the user) is refused (nothing changes).
    A run's global note records the run's workspace as its origin (§4)."""
    with db.lock, db.transaction() as conn:
        index = scope_index(db, recall, w.scope_key)
        existing = select_note(conn, w.scope_key, w.key)
        refused = refusal(existing, operator=w.operator)
        if refused is not None:
            assert existing is not None
            event = refused_event(existing, "remember", refused)
            return MemoryWriteResult(note=None, refused=refused, existing=existing, events=(event,))
        ran_in = run_workspace(conn, w.run_id)
        origin = ran_in if w.scope_key == GLOBAL else None
        note = upsert(conn, w, existing, origin, ran_in or where)
        plan = _evict(conn, w.scope_key, note.id, limits)
        found: tuple[SimilarNote, ...] = ()
        if similar:
            gone = [n.key for n in plan.evicted]
            found = restatements(index, recall.words(w.value), w.key, gone)
        events = (
            write_event(
                note,
                replaced=existing is not None,
                truncated=w.truncated,
                original_chars=w.original_chars,
                similar=found,
                operator=w.operator,
            ),
            *(evict_event(n, plan.reasons[n.id], w.key) for n in plan.evicted),
        )
        if w.operator:
            insert_events(conn, None, None, events)
        recall.written(note, plan.evicted)
    return MemoryWriteResult(
        note=note,
        existing=existing,
        replaced=existing is not None,
        truncated=w.truncated,
        original_chars=w.original_chars,
        evicted=plan.evicted,
        similar=found,
        over_cap=plan.over_cap,
        events=events,
    )


def _evict(conn: Connection, scope: str, keep_id: int, limits: MemoryLimits) -> EvictionPlan:
    """Evict what the rules say, in §4 order, to bring the scope within its caps."""
    entries, chars = size(conn, scope)
    candidates = eviction_candidates(conn, scope, keep_id)
    try:
        plan = plan_evictions(
            candidates, entries=entries, chars=chars, limits=limits, keep_id=keep_id
        )
    finally:
        candidates.close()
    delete_notes(conn, [n.id for n in plan.evicted])
    return plan


def forget_note(db: Database, recall: RecallIndex, scope: str, key: str) -> MemoryForgetResult:
    """A run withdraws a note: refused for the user's note (pinned, or written by the
    user); says so for a missing one."""
    key = check_key(redact(key))
    with db.lock, db.transaction() as conn:
        recall.sync(db.data_version())
        note = select_note(conn, scope, key)
        if note is None:
            return MemoryForgetResult(note=None, events=(forget_missing_event(scope, key),))
        refused = refusal(note, operator=False)
        if refused is not None:
            event = refused_event(note, "forget", refused)
            return MemoryForgetResult(note=note, refused=refused, events=(event,))
        delete_notes(conn, [note.id])
        recall.removed(scope, key)
    return MemoryForgetResult(note=note, events=(forget_event(note),))


def pin_note(
    db: Database, recall: RecallIndex, scope: str, key: str, pinned: bool
) -> MemoryNote | None:
    key = check_key(key)
    with db.lock, db.transaction() as conn:
        recall.sync(db.data_version())
        note = set_pin(conn, scope, key, pinned)
        if note is None:
            return None
        insert_events(conn, None, None, [operator_event("memory_pin", note)])
        recall.written(note)
    return note


def delete_note(db: Database, recall: RecallIndex, scope: str, key: str) -> MemoryNote | None:
    key = check_key(key)
    with db.lock, db.transaction() as conn:
        recall.sync(db.data_version())
        note = select_note(conn, scope, key)
        if note is None:
            return None
        delete_notes(conn, [note.id])
        insert_events(conn, None, None, [operator_event("memory_delete", note)])
        recall.removed(scope, key)
    return note


def clear_scope(db: Database, recall: RecallIndex, scope: str) -> int:
    with db.lock, db.transaction() as conn:
        recall.sync(db.data_version())
        keys = delete_scope(conn, scope)
        insert_events(conn, None, None, [clear_event(scope, keys)])
        recall.cleared(scope)
    return len(keys)


__all__ = [
    "clear_scope",
    "delete_note",
    "forget_note",
    "pin_note",
    "scope_index",
    "write_note",
]
