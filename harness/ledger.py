"""The run's ledger: every observation (kind, target, step, full text) in order — tool
results with the id of the call they answer, and the model's own turns (kind ``message``:
its words and its tool calls) — and the changes to files that make earlier reads stale
(§3.2, §3.3).

The ledger keeps full texts; what a request carries is decided by ``harness.context``.
A change that leaves a file's bytes as the model last saw them invalidates nothing: every
comparison is by content hash (of the range, once the assembler has checked it: a
``Confirmation`` records that the text the model holds is still what the file says).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from harness.types import ReadSpan, ToolCall, ToolResult, normalize_path

MESSAGE = "message"  # the kind of a model turn's observation
USER = "user"  # the kind of a user's turn in a conversation (§11): a follow-up's goal


class Cause(StrEnum):
    WRITE = "write"  # the agent's write_file / edit_file
    EXEC = "exec"  # a command the agent ran changed the file (e.g. a formatter)
    DISK = "disk"  # anything else: the editor's save, git, the user's shell


@dataclass(frozen=True)
class Observation:
    seq: int
    step: int
    kind: str
    target: str
    text: str
    ok: bool = True
    read: ReadSpan | None = None
    call_id: str | None = None  # a tool result: the id of the call it answers
    calls: tuple[ToolCall, ...] = ()  # a model turn (kind ``message``): its tool calls
    reread_of: int | None = None  # a refresh entry the assembler appended: the read it corrects
    turn: int | None = None  # an earlier turn of the conversation (§11); None: this run

    @property
    def at(self) -> str:
        """``step 3``, or ``step 3 of turn 1`` for an earlier turn's."""
        return at_step(self.step, self.turn)


@dataclass(frozen=True)
class Change:
    """A file's content changed after ledger position ``seq`` (new_hash None: deleted)."""

    seq: int
    step: int
    path: str
    cause: Cause
    new_hash: str | None
    turn: int | None = None  # an earlier turn of the conversation (§11); None: this run
    old_hash: str | None = None  # an agent's write: the file's hash before it (None: unknown)

    def describe(self) -> str:
        if self.cause is Cause.WRITE:
            return f"the write at {at_step(self.step, self.turn)}"
        if self.cause is Cause.EXEC:
            return f"the exec at {at_step(self.step, self.turn)}"
        return "a change on disk"


def at_step(step: int, turn: int | None) -> str:
    return f"step {step}" if turn is None else f"step {step} of turn {turn}"


@dataclass(frozen=True)
class Refresh:
    """A stale read re-read at assembly time: ``text`` is the current text of its lines,
    what the model holds for ``seq`` once the refresh entry (the changed lines) is sent."""

    seq: int
    step: int
    mark: int  # the ledger position when it was re-read
    text: str
    content_hash: str
    invalidated_by: Change
    shown_hash: str | None = None  # sha256 of the lines shown: what a later check compares


@dataclass(frozen=True)
class Confirmation:
    """A read suspected stale whose shown text is unchanged (an edit elsewhere in the file):
    as of ledger position ``mark`` the file's hash is ``content_hash`` and the model's copy
    is still right."""

    seq: int
    mark: int
    content_hash: str


@dataclass(frozen=True)
class LedgerParts:
    """A ledger's contents (``Ledger.export``, ``Ledger.restored``)."""

    observations: list[Observation]
    changes: list[Change]  # per path, oldest first
    log: list[Change]  # in the order noted
    known: dict[str, str | None]
    refreshed: dict[int, Refresh]
    seen: dict[int, tuple[int, str]]


class Ledger:
    """Observations and changes of one run. ``note_change`` may be called from a watcher
    thread, so mutations hold a lock; readers take snapshots."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._observations: list[Observation] = []
        self._changes: dict[str, list[Change]] = {}  # path -> its changes, oldest first
        self._log: list[Change] = []  # every change, in the order noted
        self._known: dict[str, str | None] = {}  # path -> hash of the bytes last seen/written
        self._refreshed: dict[int, Refresh] = {}
        self._seen: dict[int, tuple[int, str]] = {}  # seq -> (mark, file hash) last checked

    # -- writing -----------------------------------------------------------------------------

    def add(self, step: int, result: ToolResult, call_id: str | None = None) -> Observation:
        """Record a tool result (``call_id``: the call it answers, when the model made one)."""
        with self._lock:
            obs = Observation(
                seq=len(self._observations),
                step=step,
                kind=result.name,
                target=result.target,
                text=result.text,
                ok=result.ok,
                read=result.read,
                call_id=call_id,
            )
            self._observations.append(obs)
            if result.read is not None:
                self._known[normalize_path(result.read.path)] = result.read.content_hash
            return obs

    def add_turn(self, step: int, words: str, calls: tuple[ToolCall, ...] = ()) -> Observation:
        """Record what the model said in a turn and the tool calls it made (before their
        results, which ``add`` records with the ids of these calls)."""
        with self._lock:
            obs = Observation(
                seq=len(self._observations),
                step=step,
                kind=MESSAGE,
                target="",
                text=words,
                calls=tuple(calls),
            )
            self._observations.append(obs)
            return obs

    def add_user(self, step: int, text: str) -> Observation:
        """Record a user's turn (a follow-up's goal, §11): a text of the user's, no call's."""
        with self._lock:
            obs = Observation(len(self._observations), step, USER, "", text)
            self._observations.append(obs)
            return obs

    def note_change(
        self,
        path: str,
        cause: Cause,
        step: int,
        new_hash: str | None,
        old_hash: str | None = None,
    ) -> bool:
        """Record that ``path`` now has ``new_hash`` (``old_hash``: an agent's write, the
        hash it replaced). Returns False (and records nothing) when the bytes are what the
        ledger last knew — an own write seen again by the watcher, or a save that changed
        nothing."""
        path = normalize_path(path)
        with self._lock:
            if path in self._known and self._known[path] == new_hash:
                return False
            if path not in self._known and cause is Cause.DISK:
                # Never read nor written by this run: nothing the model saw can be wrong,
                # but remember the hash so a later identical report is ignored.
                self._known[path] = new_hash
                return False
            self._known[path] = new_hash
            change = Change(len(self._observations), step, path, cause, new_hash, old_hash=old_hash)
            self._changes.setdefault(path, []).append(change)
            self._log.append(change)
            return True

    def add_reread(self, reread: Observation, mark: int) -> Observation:
        """Record a refresh entry (§3 rule 3: the changed lines of a stale read, or why it
        could not be refreshed) as an observation of its own, at the position the assembler
        gave it (the next one: nothing else is recorded between an assembly and its commit).
        ``mark``: the ledger position when it was read, so a change noted since (while the
        request was with the provider) makes it stale in turn."""
        assert reread.reread_of is not None
        with self._lock:
            if reread.seq != len(self._observations):
                raise ValueError(
                    f"re-read at position {reread.seq}, but the ledger holds "
                    f"{len(self._observations)} observations: commit right after assemble"
                )
            self._observations.append(reread)
            if reread.read is not None:
                self._seen[reread.seq] = (mark, reread.read.content_hash)
                self._known[normalize_path(reread.read.path)] = reread.read.content_hash
            return reread

    def apply_refresh(self, refresh: Refresh) -> None:
        """The model now holds ``refresh.text`` for the read ``refresh.seq`` (its refresh
        entry was sent): later checks compare against it."""
        with self._lock:
            self._refreshed[refresh.seq] = refresh
            self._seen[refresh.seq] = (refresh.mark, refresh.content_hash)
            obs = self._observations[refresh.seq]
            if obs.read is not None:
                self._known[normalize_path(obs.read.path)] = refresh.content_hash

    def confirm(self, confirmation: Confirmation) -> None:
        """The text the model holds for a read is still right as of ``confirmation.mark``."""
        with self._lock:
            self._seen[confirmation.seq] = (confirmation.mark, confirmation.content_hash)

    # -- a conversation's next run continues it (§11) ------------------------------------------

    def export(self) -> LedgerParts:
        """Everything the ledger holds, copied (``harness.context.snapshot`` stores it)."""
        with self._lock:
            return LedgerParts(
                list(self._observations),
                [c for changes in self._changes.values() for c in changes],
                list(self._log),
                dict(self._known),
                dict(self._refreshed),
                dict(self._seen),
            )

    @classmethod
    def restored(cls, parts: LedgerParts) -> Ledger:
        """A ledger holding ``parts`` (an ``export``), to continue from."""
        ledger = cls()
        ledger._observations = list(parts.observations)
        for change in parts.changes:
            ledger._changes.setdefault(change.path, []).append(change)
        ledger._log = list(parts.log)
        ledger._known = dict(parts.known)
        ledger._refreshed = dict(parts.refreshed)
        ledger._seen = dict(parts.seen)
        return ledger

    # -- reading -----------------------------------------------------------------------------

    def observations(self) -> list[Observation]:
        with self._lock:
            return list(self._observations)

    def since(self, seq: int) -> list[Observation]:
        """The observations from position ``seq`` on (what an assembler has not seen yet)."""
        with self._lock:
            return self._observations[seq:]

    def known_paths(self) -> dict[str, str | None]:
        with self._lock:
            return dict(self._known)

    def __len__(self) -> int:
        return len(self._observations)

    def stale_reason(self, obs: Observation) -> Change | None:
        """The change that may have made ``obs`` (a read) wrong, or None if the file is as it
        was when the model's copy — the read, its latest re-read or confirmation — was
        taken. The bounded assembler then compares the shown text itself: an edit outside a
        ranged read's lines leaves it right."""
        if obs.read is None:
            return None
        with self._lock:
            mark, seen = self._seen.get(obs.seq, (obs.seq + 1, obs.read.content_hash))
            path = normalize_path(obs.read.path)
            changes = [c for c in self._changes.get(path, ()) if c.seq >= mark]
        if not changes or changes[-1].new_hash == seen:
            return None
        return next(c for c in changes if c.new_hash != seen)

    def own_writes(self, obs: Observation) -> list[Change] | None:
        """The changes to ``obs``'s file since the model's copy was taken when they are all
        the agent's own writes, each applied to the bytes the one before left (an unbroken
        chain of hashes from the copy's); else None."""
        if obs.read is None:
            return None
        with self._lock:
            mark, seen = self._seen.get(obs.seq, (obs.seq + 1, obs.read.content_hash))
            path = normalize_path(obs.read.path)
            changes = [c for c in self._changes.get(path, ()) if c.seq >= mark]
        held: str | None = seen
        while changes and changes[0].new_hash == held:  # noted at the mark, already held
            changes = changes[1:]
        for change in changes:
            if change.cause is not Cause.WRITE or change.old_hash != held:
                return None
            held = change.new_hash
        return changes or None

    def changed_since(self, count: int) -> tuple[set[str], int]:
        """The paths changed after the first ``count`` changes noted, and the count now: an
        assembler re-checks only the reads of those paths."""
        with self._lock:
            return {c.path for c in self._log[count:]}, len(self._log)

    def seen_hash(self, obs: Observation) -> str | None:
        """The hash of the whole file when the model's copy of ``obs`` (a read) was taken or
        last confirmed."""
        if obs.read is None:
            return None
        with self._lock:
            return self._seen.get(obs.seq, (0, obs.read.content_hash))[1]

    def mark(self) -> int:
        """The ledger position now: changes noted from here on have ``seq >= mark()``."""
        with self._lock:
            return len(self._observations)

    def refresh_of(self, seq: int) -> Refresh | None:
        with self._lock:
            return self._refreshed.get(seq)

    def touched(self) -> list[str]:
        """Targets touched so far (paths and patterns), oldest first, for memory relevance."""
        with self._lock:
            seen: dict[str, None] = {}
            for o in self._observations:
                if o.kind not in (MESSAGE, USER):
                    seen.setdefault(o.target, None)
            return list(seen)


def paths_of(results: Iterable[ToolResult]) -> list[str]:
    return [w.path for r in results for w in r.writes]
