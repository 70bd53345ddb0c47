"""Reverting a run: every file the run wrote goes back to its content before the run.

The ``edits`` table holds, per agent write, the bytes before and after — including the
intents of writes whose step never committed (the process died between announcing a write
and committing its step, §5). For each path the first ``before`` is the content before the
run (``None``: the run created the file, so reverting deletes it). What the run may have
left is the last ``after`` — or, when the last writes are intents not confirmed by a
commit, the ``before`` of any of them (such a write may not have happened: writes are
atomic, so the file holds one or the other). A file whose current content is none of these
and not already the original was changed since by someone else (the user, a formatter,
another run) and is refused unless ``force``. A file with unsaved changes in the editor
(``guard``) is refused too unless ``force``: the buffer is the user's.

Writes go through the workspace's containment and the ``write`` policy (issue 30, item 7:
the rows can be forged by anyone who can write the store): a path the policy denies — the
secrets, a deny rule — is never written, even with ``force``; one it asks about (the
runs-later layer) only with ``force``. A run the current user did not record (its
``author``) is refused whole unless ``force``. Writes are atomic (temp file + rename, mode
kept). Afterwards the directories the run created are removed when empty, and so are the
temp files of writes a crash interrupted. The result lists what happened to each file;
nothing here raises for one bad file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from harness.errors import ContainmentError
from harness.policy import Policy, RuleSet
from harness.store.owner import author
from harness.store.records import EditRow, RunRow
from harness.types import Act, DocumentGuard, Effect
from harness.workspace import Workspace


class RevertAction(StrEnum):
    RESTORED = "restored"  # written back to its content before the run
    DELETED = "deleted"  # the run created it; it is gone again
    UNCHANGED = "unchanged"  # already as it was before the run
    REFUSED = "refused"  # changed since, unsaved in the editor, or outside the workspace
    FAILED = "failed"  # the disk said no (permissions, a directory in the way)


@dataclass(frozen=True)
class FileRevert:
    """What reverting did to one file (``path`` is workspace-relative)."""

    path: str
    action: RevertAction
    reason: str = ""

    @property
    def changed_disk(self) -> bool:
        return self.action in (RevertAction.RESTORED, RevertAction.DELETED)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "action": self.action.value, "reason": self.reason}


@dataclass(frozen=True)
class RevertResult:
    run_id: int
    workspace: Path
    files: tuple[FileRevert, ...]
    dirs_removed: tuple[str, ...] = ()  # directories the run created, empty again and gone

    def count(self, action: RevertAction) -> int:
        return sum(1 for f in self.files if f.action is action)

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "workspace": str(self.workspace),
            "files": [f.to_json() for f in self.files],
            "restored": self.count(RevertAction.RESTORED),
            "deleted": self.count(RevertAction.DELETED),
            "refused": self.count(RevertAction.REFUSED),
            "failed": self.count(RevertAction.FAILED),
            "dirsRemoved": list(self.dirs_removed),
        }


class RunEdits(Protocol):
    """The part of the store reverting reads."""

    def get_run(self, run_id: int) -> RunRow | None: ...

    def run_edits(self, run_id: int) -> list[EditRow]: ...


@dataclass(frozen=True)
class FileHistory:
    path: str
    original: bytes | None  # the first ``before``: None when the run created the file
    final: bytes  # the last ``after``
    # What else the run may have left: the ``before`` of trailing unconfirmed intents.
    maybe: tuple[bytes | None, ...] = ()

    def left_by_run(self, content: bytes | None) -> bool:
        """Whether ``content`` is something the run itself may have left on disk."""
        return content == self.final or content in self.maybe


def file_histories(edits: Sequence[EditRow]) -> list[FileHistory]:
    """One entry per path, in the order the run first wrote them."""
    rows: dict[str, list[EditRow]] = {}
    for edit in edits:
        rows.setdefault(edit.path, []).append(edit)
    histories = []
    for path, writes in rows.items():
        maybe: list[bytes | None] = []
        for w in reversed(writes):
            if w.committed:
                break
            maybe.append(w.before)
        histories.append(FileHistory(path, writes[0].before, writes[-1].after, tuple(maybe)))
    return histories


def authorship_refusal(row: RunRow, *, force: bool) -> str | None:
    """Why run ``row`` is not reverted without ``force``: another user (or machine)
    recorded it, or no one is named; None when the current user did."""
    me = author()
    if force or row.author == me:
        return None
    who = f"by {row.author}" if row.author else "with no author"
    return (
        f"run {row.run_id} was recorded {who}, not by you ({me}): its rows may not be what "
        "your agent wrote; revert with force to write them anyway"
    )


def policy_refusal(policy: RuleSet, path: str, *, force: bool) -> str | None:
    """Why the ``write`` policy does not let revert write ``path``: a deny always, an ask
    (the runs-later layer) without ``force``; None when it may."""
    verdict = policy.explain(Act.WRITE, path)
    if verdict.effect is Effect.DENY:
        return f"refused by policy ({verdict.reason}); revert never writes it"
    if verdict.effect is Effect.ASK and not force:
        return f"needs approval ({verdict.reason}); look at it, then revert with force"
    return None


def revert_edits(
    workspace: Workspace,
    edits: Sequence[EditRow],
    *,
    force: bool = False,
    guard: DocumentGuard | None = None,
    policy: RuleSet | None = None,
    left: Mapping[str, Sequence[bytes | None]] | None = None,
) -> tuple[FileRevert, ...]:
    """Put every file in ``edits`` back to its content before the first edit (the
    directories it created are left: ``remove_created_dirs``), through ``policy`` (default:
    the workspace's, ``Policy.load``). ``left``: per path, more contents the agent's side
    left (a hunk's undo), not to be taken for someone else's."""
    rules = Policy.load(workspace.root) if policy is None else policy
    histories = [
        replace(h, maybe=(*h.maybe, *(left or {}).get(h.path, ()))) for h in file_histories(edits)
    ]
    files = tuple(
        _revert_file(workspace, h, force=force, guard=guard, policy=rules) for h in histories
    )
    for edit in {e.path: e for e in edits}.values():
        _remove_temp_files(workspace, edit.path)
    return files


def revert_run(
    store: RunEdits,
    run_id: int,
    *,
    force: bool = False,
    guard: DocumentGuard | None = None,
    left: Mapping[str, Sequence[bytes | None]] | None = None,
) -> RevertResult | None:
    """Revert the files run ``run_id`` wrote; ``None`` when there is no such run.
    ``left``: per path, contents a hunk's undo left (``revert_edits``).

    Raises ``ConfigError`` when the run's workspace no longer exists.
    """
    row = store.get_run(run_id)
    if row is None:
        return None
    workspace = Workspace(Path(row.workspace))
    edits = store.run_edits(run_id)
    refusal = authorship_refusal(row, force=force)
    if refusal is not None:
        paths = dict.fromkeys(e.path for e in edits)
        refused = tuple(FileRevert(p, RevertAction.REFUSED, refusal) for p in paths)
        return RevertResult(run_id, workspace.root, refused)
    files = revert_edits(workspace, edits, force=force, guard=guard, left=left)
    return RevertResult(run_id, workspace.root, files, remove_created_dirs(workspace, edits))


def remove_created_dirs(workspace: Workspace, edits: Sequence[EditRow]) -> tuple[str, ...]:
    """Remove, deepest first, the directories the run's writes created (``new_dirs``) that
    are empty now; a directory holding anything stays. Returns the ones removed."""
    created = {d for e in edits for d in e.new_dirs}
    removed: list[str] = []
    for rel in sorted(created, key=lambda d: (-d.count("/"), d)):
        try:
            path = workspace.resolve(rel, for_write=True)
            if path.is_symlink() or not path.is_dir() or any(path.iterdir()):
                continue
            path.rmdir()
        except (OSError, ContainmentError):
            continue
        removed.append(rel)
    return tuple(removed)


def _remove_temp_files(workspace: Workspace, rel: str) -> None:
    """Remove what a write interrupted by a crash left beside ``rel``: the workspace's
    atomic writes go through ``.<name>.<8 hex>.harness-tmp`` in the same directory."""
    try:
        target = workspace.resolve(rel, for_write=True)
    except ContainmentError:
        return
    pattern = re.compile(rf"\.{re.escape(target.name)}\.[0-9a-f]{{8}}\.harness-tmp")
    try:
        entries = list(target.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        if pattern.fullmatch(entry.name) and entry.is_file() and not entry.is_symlink():
            entry.unlink(missing_ok=True)


def _revert_file(
    workspace: Workspace,
    history: FileHistory,
    *,
    force: bool,
    guard: DocumentGuard | None,
    policy: RuleSet,
) -> FileRevert:
    path = history.path
    refusal = policy_refusal(policy, path, force=force)
    if refusal is not None:
        return FileRevert(path, RevertAction.REFUSED, refusal)
    try:
        target = workspace.resolve(path, for_write=True)
    except ContainmentError as exc:
        return FileRevert(path, RevertAction.REFUSED, str(exc))
    if target.is_dir():
        return FileRevert(path, RevertAction.REFUSED, "is a directory now")
    try:
        current = _read(target)
    except OSError as exc:
        return FileRevert(path, RevertAction.FAILED, str(exc))
    if current == history.original:
        return FileRevert(path, RevertAction.UNCHANGED, "already as it was before the run")
    if not force:
        if not history.left_by_run(current):
            why = "was deleted" if current is None else "was changed"
            return FileRevert(
                path,
                RevertAction.REFUSED,
                f"{why} since the run wrote it; revert with force to overwrite that change",
            )
        if guard is not None and guard.has_unsaved_changes(path):
            return FileRevert(
                path,
                RevertAction.REFUSED,
                "has unsaved changes in the editor; save or discard them, or revert with force",
            )
    try:
        write_back(workspace, path, history.original)
        if history.original is None:
            return FileRevert(path, RevertAction.DELETED, "created by the run")
    except (OSError, ContainmentError) as exc:
        return FileRevert(path, RevertAction.FAILED, str(exc))
    return FileRevert(path, RevertAction.RESTORED)


def write_back(workspace: Workspace, rel: str, content: bytes | None) -> None:
    """The one way an undo (a run's, a file's, a hunk's, a checkpoint's) writes: ``content``
    atomically through the workspace's containment, or the file removed (``None``). Raises
    ``OSError`` or ``ContainmentError``."""
    if content is None:
        workspace.resolve(rel, for_write=True).unlink(missing_ok=True)
        return
    workspace.write_atomic(rel, content)


def read_now(workspace: Workspace, rel: str) -> bytes | None:
    """The file's bytes on disk now; ``None``: not there (or not a file, or outside)."""
    try:
        target = workspace.resolve(rel)
        return target.read_bytes() if target.is_file() else None
    except (OSError, ContainmentError):
        return None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


__all__ = [
    "FileHistory",
    "FileRevert",
    "RevertAction",
    "RevertResult",
    "authorship_refusal",
    "file_histories",
    "policy_refusal",
    "read_now",
    "remove_created_dirs",
    "revert_edits",
    "revert_run",
    "write_back",
]
