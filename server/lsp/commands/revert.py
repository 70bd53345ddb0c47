"""``harness.run.revert``, ``harness.run.changes``, ``harness.run.revertFile``: what a run
wrote, and putting it back (``harness.revert``, ``harness.revert.changes``; §7, §11).

A run still in progress cannot be reverted (cancel it first). Files changed since the run
wrote them, or holding unsaved changes in the editor, are refused unless ``force`` (for one
file, an unsaved buffer is refused even with ``force``). A run of a workspace outside the
client's folders is refused unless its folder is named (``workspaceFolder``, §11 "Scope"):
one window must not rewrite another repository behind its user's back. Each file put back
gets a ``harness/didWrite`` so editors reload it, and any active run in that folder is told
(its reads of those files are now stale).
"""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.revert import FileRevert, revert_run
from harness.revert.changes import NotWrittenByRun, revert_one, runs_changes
from harness.revert.review import review
from harness.revert.undo_check import Undone, before_undo
from harness.store.records import RunRow
from server.lsp.commands.table import handles
from server.lsp.documents import EditorGuard
from server.lsp.errors import Conflict, InvalidParams, NotFound
from server.lsp.folders import check_read_scope, check_scope, uri_to_path
from server.lsp.observer import DID_WRITE
from server.lsp.params import ChangesParams, RevertFileParams, RevertParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


def writable_run(
    host: CommandHost, params: RevertParams | RevertFileParams, doing: str, run_id: int
) -> RunRow:
    """Run ``run_id``, once it may be written back: not active, in scope."""
    if host.runs.is_active(run_id):
        raise Conflict(f"run {run_id} is still in progress; cancel it first", runId=run_id)
    store = host.store()
    row = store.get_run(run_id)
    if row is None:
        raise NotFound(f"no run {run_id} in the store {store.path}")
    check_scope(row.workspace, host.folder_roots(), params.workspace_folder, doing)
    return row


def runs_named(host: CommandHost, params: ChangesParams) -> list[int]:
    """The run ``runId`` names, or the runs of conversation ``conversationId`` in order
    (§11: a conversation is named by its first run)."""
    if (params.run_id is None) == (params.conversation_id is None):
        raise InvalidParams("give either `runId` or `conversationId`")
    if params.run_id is not None:
        return [params.run_id]
    assert params.conversation_id is not None
    store = host.store()
    runs = [r.run_id for r in store.conversation_runs(params.conversation_id)]
    if not runs:
        raise NotFound(f"no conversation {params.conversation_id} in the store {store.path}")
    return runs


def written(host: CommandHost, workspace: Path, files: tuple[FileRevert, ...]) -> None:
    changed = [workspace / f.path for f in files if f.changed_disk]
    for path in changed:
        host.notify(DID_WRITE, {"uri": path.as_uri()})
    host.runs.paths_changed(changed)


@handles("harness.run.revert")
def revert(host: CommandHost, params: RevertParams) -> Awaitable[dict[str, Any]]:
    """One run put back; or a conversation's runs, newest first, so that each file ends as
    it was before the conversation's first write of it (§11)."""
    runs = runs_named(host, params)
    for run_id in runs:
        writable_run(host, params, f"revert run {run_id}", run_id)
    undone = [_revert_one_run(host, run_id, params.force) for run_id in reversed(runs)]
    if params.run_id is not None:
        return undone[0].answer()
    return _conversation_reverted(params, undone)


async def _conversation_reverted(params: RevertParams, undone: list[Undone]) -> dict[str, Any]:
    results = [await u.answer() for u in undone]
    totals = ("restored", "deleted", "refused", "failed")
    return {
        "conversationId": params.conversation_id,
        "workspace": results[0]["workspace"],
        "runs": results,
        **{key: sum(int(r[key]) for r in results) for key in totals},
    }


def _revert_one_run(host: CommandHost, run_id: int, force: bool) -> Undone:
    store = host.store()
    row = store.get_run(run_id)
    if row is None:
        raise NotFound(f"no run {run_id} in the store {store.path}")
    root = Path(row.workspace).resolve()
    guard = EditorGuard(host.documents, root)
    before = before_undo(root, store.files_changed(run_id))
    result = revert_run(store, run_id, force=force, guard=guard, left=left_by_undos(host, run_id))
    if result is None:
        raise NotFound(f"no run {run_id} in the store {store.path}")
    written(host, result.workspace, result.files)
    touched = [f.path for f in result.files if f.changed_disk]
    port = host.runs.semantic_port(result.workspace)
    return Undone(result.to_json(), port, result.workspace, before, touched, list(before))


@handles("harness.run.changes")
def changes(host: CommandHost, params: ChangesParams) -> list[dict[str, Any]]:
    store = host.store()
    runs = runs_named(host, params)
    rows = [(r, row.workspace) for r in runs if (row := store.get_run(r)) is not None]
    check_read_scope(rows, host.folder_roots(), params.workspace_folder)
    found = runs_changes(store, runs)
    hunks = review(store, runs)
    if found is None or hunks is None:
        raise NotFound(f"no run {runs[0]} in the store {store.path}")
    files = found.to_json()
    for f in files:
        reviewed = hunks.files.get(f["path"])
        f["hunks"] = [h.to_json(state) for h, state in reviewed.hunks] if reviewed else []
        f["toReview"] = reviewed.to_review if reviewed else 0
    return files


def left_by_undos(host: CommandHost, run_id: int) -> dict[str, list[bytes | None]]:
    """Per path, the contents hunk undos of ``run_id``'s conversation left."""
    store = host.store()
    row = store.get_run(run_id)
    left: dict[str, list[bytes | None]] = {}
    if row is not None:
        for mark in store.hunk_marks(row.conversation_id or run_id):
            if mark.left is not None:
                left.setdefault(mark.path, []).append(mark.left)
    return left


@handles("harness.run.revertFile")
def revert_file(host: CommandHost, params: RevertFileParams) -> Awaitable[dict[str, Any]]:
    runs = runs_named(host, params)
    rows = [writable_run(host, params, f"revert a file of run {r}", r) for r in runs]
    workspace = Path(rows[0].workspace).resolve()
    rel = relative(params.path, workspace)
    guard = EditorGuard(host.documents, workspace)
    before = before_undo(workspace, [rel])
    try:
        left = left_by_undos(host, runs[0]).get(rel, [])
        done = revert_one(
            host.store(), runs[0], rel, force=params.force, guard=guard, run_ids=runs, left=left
        )
    except NotWrittenByRun as exc:
        raise InvalidParams(f"`path`: {exc}; harness.run.changes lists its files") from None
    if done is None:
        raise NotFound(f"no run {runs[0]} in the store")
    written(host, workspace, (done,))
    touched = [done.path] if done.changed_disk else []
    result = {**named(params), "workspace": str(workspace), **done.to_json()}
    port = host.runs.semantic_port(workspace)
    store = host.store()
    wrote = [p for r in runs for p in store.files_changed(r)]
    return Undone(result, port, workspace, before, touched, wrote).answer()


def named(params: ChangesParams) -> dict[str, int | None]:
    """What a result names: the run, or the conversation."""
    if params.run_id is not None:
        return {"runId": params.run_id}
    return {"conversationId": params.conversation_id}


def relative(path: str, workspace: Path) -> str:
    """``path`` as the run's edits name it: workspace-relative as given, or a ``file://``
    URI or absolute path inside the run's workspace."""
    absolute = uri_to_path(path) if path.startswith("file:") else Path(path)
    if absolute is None or not absolute.is_absolute():
        return path
    try:
        return absolute.relative_to(workspace).as_posix()
    except ValueError:
        raise InvalidParams(
            f"`path`: {path} is not inside the run's workspace {workspace}"
        ) from None


__all__ = [
    "left_by_undos",
    "named",
    "relative",
    "runs_named",
    "writable_run",
    "written",
]
