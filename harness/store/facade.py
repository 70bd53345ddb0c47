"""``Store``: the one object the rest of the harness uses for the SQLite store — the trace
(§5) and durable memory's operator API (§4). Each method is one transaction or one read;
the SQL lives in ``runs``, ``steps``, ``edits`` and ``notes``, memory's rules in
``harness.memory.rules``, and the recall index is its own object (``RecallIndex``).

Opening a store marks the runs whose process died as ``interrupted`` (§5).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.closing import Closing
from harness.contract import MemoryLimits
from harness.errors import StoreError
from harness.memory.index import ScopeIndex
from harness.memory.notes import (
    MemoryForgetResult,
    MemoryNote,
    MemoryRecall,
    MemoryUsage,
    MemoryWriteResult,
    SimilarNote,
)
from harness.memory.recall import RecallIndex
from harness.memory.rules import note_write, restatements
from harness.memory.text import GLOBAL, check_key, clean_value, scope_key
from harness.redact import redact
from harness.store.base import Database as SqliteDatabase
from harness.store.connection import Database, db_errors, is_url, shown
from harness.store.edits import files_changed, insert_intent, select_edits
from harness.store.events import insert_run_event, select_run_events
from harness.store.memory import (
    clear_scope,
    delete_note,
    forget_note,
    pin_note,
    scope_index,
    write_note,
)
from harness.store.notes import insert_recalls, select_note, select_notes, select_recalls, usage
from harness.store.owner import author
from harness.store.records import (
    ConversationRow,
    EditRow,
    RunRow,
    RunTrace,
    StepDetail,
    StepRecord,
    StepRow,
)
from harness.store.reviews import HunkMark, insert_marks, select_marks
from harness.store.runs import (
    finish_run,
    insert_run,
    latest_run,
    mark_interrupted,
    mark_rewound,
    orphaned_runs,
    save_context,
    select_context,
    select_conversation,
    select_conversations,
    select_run,
    select_runs,
)
from harness.store.steps import (
    insert_attempt,
    insert_events,
    insert_step,
    select_attempts,
    select_events,
    select_step,
    select_steps,
)
from harness.types import Attempt, RunEnd, TraceEvent
from harness.workspace.identity import is_identity

log = logging.getLogger("harness.store")


class Store(Closing):
    """``Store(location)`` opens (creating it ``0600`` and migrating it) the SQLite database
    at a path, or the PostgreSQL database a ``postgresql://`` URL names (§12). Safe to
    share between threads. ``interrupted`` lists the runs this open marked ``interrupted``.
    ``path`` is the location as messages may show it (a URL without its password)."""

    def __init__(self, location: Path | str) -> None:
        self._db = _open(location)
        self.location = self._db.location
        self.path: Path | str = shown(self.location) if is_url(self.location) else self.location
        self.version = self._db.version
        self._recall = RecallIndex(author())
        self.interrupted = self._interrupt_orphans()

    def close(self) -> None:
        self._db.close()

    def _interrupt_orphans(self) -> tuple[int, ...]:
        """Mark the runs whose process died. A store too busy to say so now (another
        process holding the write lock past the busy timeout) opens all the same: the next
        open marks them."""
        try:
            with self._db.reading():
                found = orphaned_runs(self._db.conn)
                if not found:
                    return ()
                with self._db.transaction() as conn:
                    return tuple(r for r, owner in found if mark_interrupted(conn, r, owner))
        except (*db_errors(), StoreError) as exc:  # type: ignore[misc]
            log.warning("could not mark interrupted runs in %s: %s", self.path, exc)
            return ()

    # -- the trace: writing ------------------------------------------------------------------

    def create_run(
        self,
        *,
        goal: str,
        workspace: str,
        provider: str,
        model: str,
        contract: str,
        conversation_id: int | None = None,
        mode: str = "code",
    ) -> int:
        """A new run, owned by this process (pid, start time, host: §5); the next turn of
        ``conversation_id``, else a conversation of its own (§11)."""
        with self._db.transaction() as conn:
            return insert_run(
                conn,
                goal=goal,
                workspace=workspace,
                provider=provider,
                model=model,
                contract=contract,
                conversation_id=conversation_id,
                mode=mode,
            )

    def save_context(self, run_id: int, step: int, state: str) -> None:
        with self._db.transaction() as conn:
            save_context(conn, run_id, step, redact(state))

    def run_context(self, run_id: int) -> str | None:
        """The run's context snapshot as of its last committed step (None: none kept)."""
        with self._db.reader() as conn:
            return select_context(conn, run_id)

    def conversation_runs(self, conversation_id: int) -> list[RunRow]:
        """The runs of a conversation, turn by turn."""
        with self._db.reader() as conn:
            return select_conversation(conn, conversation_id)

    def conversations(
        self, workspaces: Sequence[str] | None, limit: int = 20, before: int | None = None
    ) -> list[ConversationRow]:
        """The conversations of ``workspaces`` (None: of every workspace), newest first;
        ``before``: those whose newest run is older than that run (the next page)."""
        with self._db.reader() as conn:
            return select_conversations(conn, workspaces, limit, before)

    def latest_run(self, workspace: str) -> int | None:
        """The workspace's newest run, if any (``harness run --continue``)."""
        with self._db.reader() as conn:
            return latest_run(conn, workspace)

    def record_attempt(self, run_id: int, step: int, attempt: Attempt) -> None:
        with self._db.transaction() as conn:
            insert_attempt(conn, run_id, step, attempt)

    def add_events(
        self, run_id: int | None, step: int | None, events: Sequence[TraceEvent]
    ) -> None:
        """Events outside a step (operator memory actions, a run's end)."""
        if events:
            with self._db.transaction() as conn:
                insert_events(conn, run_id, step, events)

    def add_run_event(self, run_id: int, step: int, event: Mapping[str, Any]) -> None:
        """One §11 event of a run, as its clients saw it (``harness.run.events``)."""
        with self._db.transaction() as conn:
            insert_run_event(conn, run_id, step, event)

    def run_events(
        self, run_ids: Sequence[int], after: int | None = None, limit: int = -1
    ) -> list[dict[str, Any]]:
        """The stored events of ``run_ids``, in order; ``after``: those past that ``seq``;
        ``limit``: at most that many per run (-1: all)."""
        with self._db.reader() as conn:
            return select_run_events(conn, run_ids, after, limit)

    def announce_write(
        self, run_id: int, step: int, path: str, before: bytes | None, after: bytes
    ) -> None:
        """Commit, in its own transaction and before the file is touched, that ``run_id``'s
        ``step`` is about to write ``after`` to ``path`` (workspace-relative) over ``before``
        (None: the file does not exist). ``commit_step`` confirms it; should the process die
        first, ``revert`` still knows the file. Raises ``StoreError`` when it cannot be
        recorded — then the write must not happen."""
        try:
            with self._db.transaction() as conn:
                insert_intent(conn, run_id, step, path, before=before, after=after)
        except db_errors() as exc:
            raise StoreError(f"cannot record the write of {path} in the store: {exc}") from exc

    def commit_step(self, rec: StepRecord) -> None:
        """The whole step in one transaction (a crash leaves all of it or none); its writes
        confirm the step's announced intents."""
        with self._db.transaction() as conn:
            insert_step(conn, rec)
            new_runs = insert_recalls(conn, rec.run_id, rec.step, rec.recalls)
        with self._db.reading():
            self._recall.recalled_by_new_runs(new_runs)

    def finish_run(self, run_id: int, end: RunEnd) -> None:
        with self._db.transaction() as conn:
            finish_run(conn, run_id, end)

    # -- the trace: reading ------------------------------------------------------------------

    def list_runs(self, limit: int = 20, workspace: str | None = None) -> list[RunRow]:
        with self._db.reader() as conn:
            return select_runs(conn, limit, workspace)

    def get_run(self, run_id: int) -> RunRow | None:
        with self._db.reader() as conn:
            return select_run(conn, run_id)

    def run_steps(self, run_id: int) -> list[StepRow]:
        with self._db.reader() as conn:
            return select_steps(conn, run_id)

    def run_trace(self, run_id: int) -> RunTrace | None:
        """The run with its steps, ``summary`` and ``filesChanged`` (``trace show``)."""
        with self._db.reader() as conn:
            run = select_run(conn, run_id)
            if run is None:
                return None
            steps = tuple(select_steps(conn, run_id))
            return RunTrace(run, steps, tuple(files_changed(conn, run_id)))

    def files_changed(self, run_id: int) -> list[str]:
        """The paths the run wrote (committed steps), in first-write order."""
        with self._db.reader() as conn:
            return files_changed(conn, run_id)

    def step_detail(self, run_id: int, step: int) -> StepDetail | None:
        with self._db.reader() as conn:
            return select_step(conn, run_id, step)

    def run_edits(self, run_id: int) -> list[EditRow]:
        """Every write of the run in order, intents whose step never committed included."""
        with self._db.reader() as conn:
            return select_edits(conn, run_id)

    def mark_hunks(self, conversation_id: int, marks: Sequence[HunkMark]) -> None:
        """Record keeps and undos of hunks of the conversation's changes (§11)."""
        with self._db.transaction() as conn:
            insert_marks(conn, conversation_id, marks)

    def mark_rewound(self, run_ids: Sequence[int]) -> None:
        """Commit, before any file is touched, that a restore rewinds ``run_ids``."""
        with self._db.transaction() as conn:
            mark_rewound(conn, run_ids)

    def hunk_marks(self, conversation_id: int) -> list[HunkMark]:
        with self._db.reader() as conn:
            return select_marks(conn, conversation_id)

    def provider_calls(self, run_id: int) -> list[dict[str, Any]]:
        with self._db.reader() as conn:
            return select_attempts(conn, run_id)

    def context_events(self, run_id: int, kind: str | None = None) -> list[dict[str, Any]]:
        with self._db.reader() as conn:
            return select_events(conn, run_id, kind)

    # -- durable memory (§4) -----------------------------------------------------------------

    def memory_list(self, ws: Path | str) -> list[MemoryNote]:
        """A scope's notes in store order (the order they were first written)."""
        with self._db.reader() as conn:
            return select_notes(conn, scope_key(ws))

    def memory_get(self, ws: Path | str, key: str) -> MemoryNote | None:
        """The note, or None; a malformed key raises ``MemoryInputError``."""
        with self._db.reader() as conn:
            return select_note(conn, scope_key(ws), check_key(key))

    def memory_usage(self, ws: Path | str) -> MemoryUsage:
        """How many notes and value characters a scope holds (to compare with its caps)."""
        with self._db.reader() as conn:
            return usage(conn, scope_key(ws))

    def memory_recalls(self, run_id: int) -> list[MemoryRecall]:
        """Every recall row of a run: which note each step carried."""
        with self._db.reader() as conn:
            return select_recalls(conn, run_id)

    def memory_similar(self, ws: Path | str, key: str, value: str) -> list[SimilarNote]:
        """Other keys in the scope whose value overlaps ``value`` (Jaccard >= 0.6 of words)."""
        with self._db.reading():
            index = scope_index(self._db, self._recall, scope_key(ws))
            found = restatements(index, self._recall.words(clean_value(value)), key.strip())
        return list(found)

    def memory_index(self, ws: Path | str) -> ScopeIndex:
        """The scope's recall index, current with the database."""
        with self._db.reading():
            return scope_index(self._db, self._recall, scope_key(ws))

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

        ``run_id=None`` is an operator write; a run's write of the user's key (pinned, or
        kind ``decision``) is refused; a run's global note records the run's workspace.
        ``pinned`` (operator only) sets the pin; None keeps it (new notes are unpinned).
        ``similar=False`` skips the restatement check. A bad key, value or kind, or a run
        asking to pin, raises ``MemoryInputError``; key and value are redacted first.
        """
        limits = limits or MemoryLimits()
        key, value = redact(key), redact(value)  # before any check or cut (§6.7)
        checked = note_write(
            scope_key(ws), key, value, run_id, step, kind, pinned=pinned, limits=limits
        )
        return write_note(
            self._db, self._recall, checked, limits=limits, similar=similar, where=_folder(ws)
        )

    def memory_forget(self, ws: Path | str, key: str, run_id: int, step: int) -> MemoryForgetResult:
        """A run withdraws a note: refused for the user's note; says so for a missing one."""
        return forget_note(self._db, self._recall, scope_key(ws), key)

    def memory_pin(self, ws: Path | str, key: str, pinned: bool) -> MemoryNote | None:
        """The operator pins (or unpins) a note; None when there is no such note."""
        return pin_note(self._db, self._recall, scope_key(ws), key, pinned)

    def memory_delete(self, ws: Path | str, key: str) -> MemoryNote | None:
        """The operator deletes a note, pinned or not; returns it, or None if there was none."""
        return delete_note(self._db, self._recall, scope_key(ws), key)

    def memory_clear(self, ws: Path | str) -> int:
        """The operator removes every note of a scope, pinned ones too; returns how many."""
        return clear_scope(self._db, self._recall, scope_key(ws))


def _folder(ws: Path | str) -> str | None:
    """The canonical path of a scope given as a folder; None for ``global`` or a key."""
    if isinstance(ws, str) and (ws == GLOBAL or is_identity(ws)):
        return None
    return str(Path(ws).expanduser().resolve())


def _open(location: Path | str) -> Database:
    if is_url(location):
        from harness.store.postgres import PgDatabase

        return PgDatabase(str(location))
    return SqliteDatabase(location)


__all__ = ["Store"]
