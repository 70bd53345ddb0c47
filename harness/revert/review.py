"""Reviewing what a run or a conversation changed hunk by hunk: each hunk pending, kept or
undone; undoing one; keeping some; how many are left to review (§11, issue 33).

A file's hunks are those of its text before the conversation's first write of it against
the agent's last write (``harness.revert.hunks``); their states are the conversation's marks in
the store (the latest of a hunk wins). Undoing a hunk is the inverse patch written through
``harness.revert.write_back`` — the one function every undo writes with — atomically and
never over an unsaved editor buffer, then recorded (the mark keeps the bytes it left, so
reverting the file later knows them as the agent's). A file that is back as it was before
(undone whole, reverted) is no longer a change and has nothing to review.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from harness.errors import ContainmentError, HarnessError
from harness.revert import RunEdits, file_histories, read_now, write_back
from harness.revert.changes import NotWrittenByRun
from harness.revert.hunks import Hunk, HunkMoved, split_hunks, undo_hunk
from harness.store.reviews import HunkMark
from harness.types import DocumentGuard, normalize_path
from harness.workspace import Workspace

PENDING, KEPT, UNDONE = "pending", "kept", "undone"


class ReviewStore(RunEdits, Protocol):
    def mark_hunks(self, conversation_id: int, marks: Sequence[HunkMark]) -> None: ...

    def hunk_marks(self, conversation_id: int) -> list[HunkMark]: ...


class NoSuchHunk(HarnessError):
    """A hunk id the file's changes do not have."""


class HunkRefused(HarnessError):
    """An undo that would overwrite someone else's change (the reason says whose)."""


@dataclass(frozen=True)
class FileHunks:
    path: str
    hunks: tuple[tuple[Hunk, str], ...]  # each hunk with its state
    created: bool  # the conversation created the file (undo it whole: revertFile)

    @property
    def to_review(self) -> int:
        return sum(1 for _, state in self.hunks if state == PENDING)


@dataclass(frozen=True)
class Review:
    conversation_id: int
    workspace: Workspace
    files: dict[str, FileHunks]  # the files that differ now from before, by path

    @property
    def to_review(self) -> int:
        return sum(f.to_review for f in self.files.values())


def review(store: ReviewStore, run_ids: Sequence[int]) -> Review | None:
    """The hunks of the files ``run_ids`` (one run, or a conversation's in order) changed
    and that differ now; ``None``: no such run."""
    row = store.get_run(run_ids[0]) if run_ids else None
    if row is None:
        return None
    conversation = row.conversation_id or row.run_id
    workspace = Workspace(Path(row.workspace))
    states = {(m.path, m.hunk_id): m.state for m in store.hunk_marks(conversation)}
    files: dict[str, FileHunks] = {}
    edits = [e for r in run_ids for e in store.run_edits(r)]
    for history in file_histories(edits):
        now = read_now(workspace, history.path)
        if now == history.original:
            continue
        before = _text(history.original or b"")
        hunks = split_hunks(history.path, before, _text(history.final))
        marked = tuple((h, states.get((history.path, h.id), PENDING)) for h in hunks)
        files[history.path] = FileHunks(history.path, marked, history.original is None)
    return Review(conversation, workspace, files)


def keep(
    store: ReviewStore, found: Review, path: str | None, hunk_ids: Sequence[str] | None
) -> int:
    """Mark as kept the pending hunks named (``path`` None: every file; ``hunk_ids`` None:
    every hunk of the file); returns how many were marked."""
    if path is None and hunk_ids:
        raise NoSuchHunk("`hunkIds` need the `path` of their file")
    files = list(found.files.values()) if path is None else [_file(found, path)]
    marks = []
    for f in files:
        ids = {h.id for h, _ in f.hunks}
        for wanted in hunk_ids or ():
            if wanted not in ids:
                raise NoSuchHunk(f"{f.path} has no hunk {wanted!r}; harness.run.changes lists them")
        marks += [
            HunkMark(f.path, h.id, KEPT)
            for h, state in f.hunks
            if state == PENDING and (hunk_ids is None or h.id in hunk_ids)
        ]
    store.mark_hunks(found.conversation_id, marks)
    return len(marks)


def undo(
    store: ReviewStore,
    found: Review,
    path: str,
    hunk_id: str,
    *,
    force: bool = False,
    guard: DocumentGuard | None = None,
) -> str:
    """Put hunk ``hunk_id`` of ``path`` back as it was before; returns the path written.
    Raises ``NoSuchHunk``, ``HunkRefused`` (changed since, unsaved in the editor, created
    by the run, already undone), ``NotWrittenByRun``."""
    f = _file(found, path)
    hunk, state = next(((h, s) for h, s in f.hunks if h.id == hunk_id), (None, ""))
    if hunk is None:
        raise NoSuchHunk(f"{f.path} has no hunk {hunk_id!r}; harness.run.changes lists them")
    if state == UNDONE:
        raise HunkRefused(f"hunk {hunk_id} of {f.path} is undone already")
    if f.created:
        raise HunkRefused(f"{f.path} was created by the agent; put it back with revertFile")
    if guard is not None and guard.has_unsaved_changes(f.path):
        raise HunkRefused(f"{f.path} has unsaved changes in the editor; save or discard them")
    now = read_now(found.workspace, f.path)
    if now is None:
        raise HunkRefused(f"{f.path} was deleted since the agent wrote it")
    try:
        text = undo_hunk(hunk, now.decode("utf-8"), _expected_at(f, hunk), force=force)
    except UnicodeDecodeError:
        raise HunkRefused(f"{f.path} is not UTF-8 text now; revert the whole file") from None
    except HunkMoved as exc:
        raise HunkRefused(f"{f.path}: {exc}") from None
    data = text.encode("utf-8")
    try:
        write_back(found.workspace, f.path, data)
    except (OSError, ContainmentError) as exc:
        raise HunkRefused(f"{f.path} could not be written: {exc}") from None
    store.mark_hunks(found.conversation_id, [HunkMark(f.path, hunk.id, UNDONE, data)])
    return f.path


def _expected_at(f: FileHunks, hunk: Hunk) -> int:
    """Where ``hunk`` starts in the file now: its place in the agent's text, moved by the
    hunks above it that are undone."""
    shift = sum(
        h.old_count - h.new_count
        for h, state in f.hunks
        if state == UNDONE and h.new_start < hunk.new_start
    )
    return hunk.new_start + shift


def _file(found: Review, path: str) -> FileHunks:
    rel = normalize_path(path)
    if rel not in found.files:
        raise NotWrittenByRun(
            f"{path!r} is not among the changes (never written, or back as it was)"
        )
    return found.files[rel]


def _text(content: bytes) -> str:
    return content.decode("utf-8", errors="replace")


__all__ = [
    "FileHunks",
    "HunkRefused",
    "NoSuchHunk",
    "Review",
    "ReviewStore",
    "keep",
    "review",
    "undo",
]
