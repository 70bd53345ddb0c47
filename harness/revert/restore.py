"""Restoring a conversation's checkpoint (issue 33): every file back to how it was before
turn ``turn`` — the writes of that turn and the later ones undone — and those turns marked
rewound, so the next follow-up continues from the turn before (``harness.run.conversation``
skips rewound runs; the trace and the events keep them).

First every file is checked: one changed since by someone else (not as the agent left it),
or unsaved in the editor, refuses the whole restore — nothing changed, the files listed —
unless ``force`` (an unsaved buffer is refused even then). Then the rewound marks are
committed (the intent), then each file is written back through ``harness.revert`` (atomic:
each file is whole, before or after). A process killed mid-restore leaves the marks and
some files back; running the restore again finds the others as the agent left them and
the restored ones unchanged, so it completes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from harness.errors import HarnessError
from harness.revert import (
    FileHistory,
    FileRevert,
    RevertAction,
    file_histories,
    read_now,
    remove_created_dirs,
    revert_edits,
)
from harness.revert.review import ReviewStore
from harness.store.records import RunRow
from harness.types import DocumentGuard
from harness.workspace import Workspace


class RestoreStore(ReviewStore, Protocol):
    def conversation_runs(self, conversation_id: int) -> list[RunRow]: ...

    def mark_rewound(self, run_ids: Sequence[int]) -> None: ...


class NoSuchTurn(HarnessError):
    """A turn the conversation does not have."""


@dataclass(frozen=True)
class RestoreResult:
    conversation_id: int
    turn: int
    workspace: Path
    rewound: tuple[int, ...]  # the runs gone back from (turn ``turn`` on)
    files: tuple[FileRevert, ...]
    refused: bool  # nothing was done: ``files`` lists the ones in the way

    def to_json(self) -> dict[str, Any]:
        return {
            "conversationId": self.conversation_id,
            "turn": self.turn,
            "workspace": str(self.workspace),
            "restored": not self.refused,
            "rewoundRuns": list(self.rewound),
            "files": [f.to_json() for f in self.files],
        }


def later_runs(runs: Sequence[RunRow], conversation_id: int, turn: int) -> list[RunRow]:
    """The runs of turn ``turn`` on; ``NoSuchTurn`` when the conversation has no such turn."""
    turns = [r.turn for r in runs]
    if turn not in turns:
        raise NoSuchTurn(
            f"conversation {conversation_id} has turns {turns[0]}–{turns[-1]}, not {turn}"
        )
    return [r for r in runs if r.turn >= turn]


def restore(
    store: RestoreStore,
    runs: Sequence[RunRow],
    turn: int,
    *,
    force: bool = False,
    guard: DocumentGuard | None = None,
    left: Mapping[str, Sequence[bytes | None]] | None = None,
) -> RestoreResult:
    """Back to before turn ``turn`` of the conversation ``runs`` (its runs, in order)."""
    conversation = runs[0].conversation_id or runs[0].run_id
    later = later_runs(runs, conversation, turn)
    workspace = Workspace(Path(runs[0].workspace))
    edits = [e for r in later for e in store.run_edits(r.run_id)]
    rewound = tuple(r.run_id for r in later)
    in_the_way = _in_the_way(workspace, file_histories(edits), force, guard, left or {})
    if in_the_way:
        return RestoreResult(conversation, turn, workspace.root, rewound, in_the_way, True)
    store.mark_rewound(rewound)  # the intent, committed before a file is touched
    files = revert_edits(workspace, edits, force=force, left=left)
    remove_created_dirs(workspace, edits)
    return RestoreResult(conversation, turn, workspace.root, rewound, files, False)


def _in_the_way(
    workspace: Workspace,
    histories: Sequence[FileHistory],
    force: bool,
    guard: DocumentGuard | None,
    left: Mapping[str, Sequence[bytes | None]],
) -> tuple[FileRevert, ...]:
    refused = []
    for h in histories:
        history = replace(h, maybe=(*h.maybe, *left.get(h.path, ())))
        now = read_now(workspace, h.path)
        if guard is not None and guard.has_unsaved_changes(h.path) and now != h.original:
            why = "has unsaved changes in the editor; save or discard them first"
        elif not force and now != h.original and not history.left_by_run(now):
            why = "was changed since the agent wrote it; restore with force to overwrite that"
        else:
            continue
        refused.append(FileRevert(h.path, RevertAction.REFUSED, why))
    return tuple(refused)


__all__ = ["NoSuchTurn", "RestoreResult", "RestoreStore", "later_runs", "restore"]
