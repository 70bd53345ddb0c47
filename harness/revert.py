"""Reverting a run: every file the run wrote goes back to its content before the run.

The ``edits`` table holds, per agent write, the bytes before and after. For each path the
first ``before`` is the content before the run (``None``: the run created the file, so
reverting deletes it) and the last ``after`` is what the run left. A file whose current
content is neither the run's last ``after`` nor already the original was changed since by
someone else (the user, a formatter, another run) and is refused unless ``force``. A file
with unsaved changes in the editor (``guard``) is refused too unless ``force``: the buffer
is the user's.

Writes go through the workspace's containment and are atomic (temp file + rename, mode
kept). The result lists what happened to each file; nothing here raises for one bad file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from harness.errors import ContainmentError
from harness.store.records import EditRow, RunRow
from harness.types import DocumentGuard
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
        }


class RunEdits(Protocol):
    """The part of the store reverting reads."""

    def get_run(self, run_id: int) -> RunRow | None: ...

    def run_edits(self, run_id: int) -> list[EditRow]: ...


@dataclass(frozen=True)
class _FileHistory:
    path: str
    original: bytes | None  # the first ``before``: None when the run created the file
    final: bytes  # the last ``after``


def file_histories(edits: Sequence[EditRow]) -> list[_FileHistory]:
    """One entry per path, in the order the run first wrote them."""
    first: dict[str, bytes | None] = {}
    last: dict[str, bytes] = {}
    for edit in edits:
        if edit.path not in first:
            first[edit.path] = edit.before
        last[edit.path] = edit.after
    return [_FileHistory(path, first[path], last[path]) for path in first]


def revert_edits(
    workspace: Workspace,
    edits: Sequence[EditRow],
    *,
    force: bool = False,
    guard: DocumentGuard | None = None,
) -> tuple[FileRevert, ...]:
    """Put every file in ``edits`` back to its content before the first edit."""
    return tuple(
        _revert_file(workspace, h, force=force, guard=guard) for h in file_histories(edits)
    )


def revert_run(
    store: RunEdits,
    run_id: int,
    *,
    force: bool = False,
    guard: DocumentGuard | None = None,
) -> RevertResult | None:
    """Revert the files run ``run_id`` wrote; ``None`` when there is no such run.

    Raises ``ConfigError`` when the run's workspace no longer exists.
    """
    row = store.get_run(run_id)
    if row is None:
        return None
    workspace = Workspace(Path(row.workspace))
    files = revert_edits(workspace, store.run_edits(run_id), force=force, guard=guard)
    return RevertResult(run_id, workspace.root, files)


def _revert_file(
    workspace: Workspace, history: _FileHistory, *, force: bool, guard: DocumentGuard | None
) -> FileRevert:
    path = history.path
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
        if current != history.final:
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
        if history.original is None:
            target.unlink(missing_ok=True)
            return FileRevert(path, RevertAction.DELETED, "created by the run")
        workspace.write_atomic(path, history.original)
    except (OSError, ContainmentError) as exc:
        return FileRevert(path, RevertAction.FAILED, str(exc))
    return FileRevert(path, RevertAction.RESTORED)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


__all__ = [
    "FileRevert",
    "RevertAction",
    "RevertResult",
    "file_histories",
    "revert_edits",
    "revert_run",
]
