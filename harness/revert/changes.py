"""What a run changed, file by file, and putting one file back (§11 "Changes").

``run_changes`` reads the run's ``edits`` (§5): per path, the text before the run's first
write and the text on disk now. A file whose content now is what it was before the run
(reverted since, or written back by the run itself) is not a change and is left out.
``revert_one`` puts one file back to its content before the run with the same rules as
reverting the whole run (``harness.revert``): a file changed since the agent last wrote it
is refused unless ``force``; an unsaved editor buffer (``guard``) is refused even with
``force`` — the buffer is the user's (§6.5). A path the run never wrote is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.revert import (
    FileRevert,
    RevertAction,
    RunEdits,
    authorship_refusal,
    file_histories,
    read_now,
    remove_created_dirs,
    revert_edits,
)
from harness.types import DocumentGuard, normalize_path
from harness.workspace import Workspace


class ChangeStatus(StrEnum):
    ADDED = "added"  # the run created it
    MODIFIED = "modified"
    DELETED = "deleted"  # gone from disk now (the run or someone else removed it)


class NotWrittenByRun(HarnessError):
    """A path the run did not write (nothing of it to show or put back)."""


@dataclass(frozen=True)
class FileChange:
    path: str  # workspace-relative, POSIX
    status: ChangeStatus
    before: str | None  # the text before the run's first write (None: it did not exist)
    after: str | None  # the text on disk now (None: it does not exist)
    run_ids: tuple[int, ...]

    def to_json(self, workspace: Path) -> dict[str, Any]:
        return {
            "path": self.path,
            "uri": (workspace / self.path).as_uri(),
            "status": self.status.value,
            "before": self.before,
            "after": self.after,
            "runIds": list(self.run_ids),
        }


@dataclass(frozen=True)
class RunChanges:
    run_id: int
    workspace: Path
    files: tuple[FileChange, ...]

    def to_json(self) -> list[dict[str, Any]]:
        return [f.to_json(self.workspace) for f in self.files]


def run_changes(store: RunEdits, run_id: int) -> RunChanges | None:
    """The files run ``run_id`` changed and that differ now; ``None``: no such run.
    Raises ``ConfigError`` when the run's workspace no longer exists."""
    return runs_changes(store, [run_id])


def runs_changes(store: RunEdits, run_ids: Sequence[int]) -> RunChanges | None:
    """The files the runs ``run_ids`` (a conversation's, in order) changed and that differ
    now: per path the text before the first write of any of them, the runs that wrote it.
    ``None``: no such run (the first)."""
    row = store.get_run(run_ids[0]) if run_ids else None
    if row is None:
        return None
    workspace = Workspace(Path(row.workspace))
    edits = {run_id: store.run_edits(run_id) for run_id in run_ids}
    files = []
    for history in file_histories([e for run_edits in edits.values() for e in run_edits]):
        now = read_now(workspace, history.path)
        if now == history.original:
            continue
        if history.original is None:
            status = ChangeStatus.ADDED if now is not None else ChangeStatus.DELETED
        else:
            status = ChangeStatus.MODIFIED if now is not None else ChangeStatus.DELETED
        writers = tuple(
            r for r, run_edits in edits.items() if any(e.path == history.path for e in run_edits)
        )
        files.append(FileChange(history.path, status, _text(history.original), _text(now), writers))
    return RunChanges(row.run_id, workspace.root, tuple(files))


def revert_one(
    store: RunEdits,
    run_id: int,
    path: str,
    *,
    force: bool = False,
    guard: DocumentGuard | None = None,
    run_ids: Sequence[int] = (),
    left: Sequence[bytes | None] = (),
) -> FileRevert | None:
    """Put ``path`` back to its content before run ``run_id`` (with ``run_ids``, a
    conversation's runs from ``run_id`` on: before the first of them that wrote it);
    ``None``: no such run. ``left``: contents a hunk's undo left in the file.

    Raises ``NotWrittenByRun`` for a path the run did not write, ``ConfigError`` when the
    run's workspace no longer exists."""
    row = store.get_run(run_id)
    if row is None:
        return None
    rel = normalize_path(path)
    edits = [e for r in (run_ids or [run_id]) for e in store.run_edits(r) if e.path == rel]
    if not edits:
        what = f"run {run_id}" if len(run_ids) <= 1 else f"conversation {run_id}"
        raise NotWrittenByRun(f"{what} did not write {path!r}")
    workspace = Workspace(Path(row.workspace))
    refusal = authorship_refusal(row, force=force)
    if refusal is not None:
        return FileRevert(rel, RevertAction.REFUSED, refusal)
    if guard is not None and guard.has_unsaved_changes(rel):
        return FileRevert(
            rel,
            RevertAction.REFUSED,
            "has unsaved changes in the editor; save or discard them first",
        )
    (done,) = revert_edits(workspace, edits, force=force, guard=guard, left={rel: left})
    remove_created_dirs(workspace, edits)
    return done


def _text(content: bytes | None) -> str | None:
    """The text of a file's bytes; an undecodable byte shows as U+FFFD."""
    return None if content is None else content.decode("utf-8", errors="replace")


__all__ = [
    "ChangeStatus",
    "FileChange",
    "NotWrittenByRun",
    "RunChanges",
    "revert_one",
    "run_changes",
    "runs_changes",
]
