"""``harness.run.revertHunk``, ``harness.run.keep``: reviewing a run's or a conversation's
changes hunk by hunk (``harness.revert.review``; §11, issue 33).

An undo is refused for a run still in progress and for a run of a folder outside the
client's (as ``harness.run.revertFile``); the hunk's file gets a ``harness/didWrite`` and
any active run in that folder is told. Both results carry ``toReview``: the hunks of the
conversation's changes still pending.
"""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.revert import FileRevert, RevertAction
from harness.revert.changes import NotWrittenByRun
from harness.revert.review import HunkRefused, NoSuchHunk, Review, keep, review, undo
from harness.revert.undo_check import Undone, before_undo
from server.lsp.commands.revert import named, relative, runs_named, writable_run, written
from server.lsp.commands.table import handles
from server.lsp.documents import EditorGuard
from server.lsp.errors import Conflict, InvalidParams, NotFound
from server.lsp.params import KeepParams, RevertHunkParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


def _review(host: CommandHost, runs: list[int]) -> Review:
    found = review(host.store(), runs)
    if found is None:
        raise NotFound(f"no run {runs[0]} in the store")
    return found


@handles("harness.run.revertHunk")
def revert_hunk(host: CommandHost, params: RevertHunkParams) -> Awaitable[dict[str, Any]]:
    runs = runs_named(host, params)
    rows = [writable_run(host, params, f"undo a hunk of run {r}", r) for r in runs]
    workspace = Path(rows[0].workspace).resolve()
    found = _review(host, runs)
    rel = relative(params.path, workspace)
    guard = EditorGuard(host.documents, workspace)
    before = before_undo(workspace, [rel])
    try:
        path = undo(host.store(), found, rel, params.hunk_id, force=params.force, guard=guard)
    except (NotWrittenByRun, NoSuchHunk) as exc:
        raise InvalidParams(f"{exc}") from None
    except HunkRefused as exc:
        raise Conflict(f"{exc}") from None
    written(host, workspace, (FileRevert(path, RevertAction.RESTORED),))
    after = _review(host, runs)
    result = {
        **named(params),
        "workspace": str(workspace),
        "path": path,
        "hunkId": params.hunk_id,
        "action": "undone",
        "toReview": after.to_review,
    }
    port = host.runs.semantic_port(workspace)
    wrote = [p for r in runs for p in host.store().files_changed(r)]
    return Undone(result, port, workspace, before, [path], wrote).answer()


@handles("harness.run.keep")
def keep_changes(host: CommandHost, params: KeepParams) -> dict[str, Any]:
    runs = runs_named(host, params)
    found = _review(host, runs)
    path = None if params.path is None else relative(params.path, found.workspace.root)
    try:
        kept = keep(host.store(), found, path, params.hunk_ids)
    except (NotWrittenByRun, NoSuchHunk) as exc:
        raise InvalidParams(f"{exc}") from None
    return {**named(params), "kept": kept, "toReview": _review(host, runs).to_review}


__all__: list[str] = []
