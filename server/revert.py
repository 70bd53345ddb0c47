"""``harness.run.revert``: put back every file a run wrote (``harness.revert``).

A run still in progress cannot be reverted (cancel it first). Files changed since the run
wrote them, or holding unsaved changes in the editor, are refused unless ``force``. Each
file put back gets a ``harness/didWrite`` so editors reload it, and any active run in that
folder is told (its reads of those files are now stale).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.revert import revert_run
from server.commands import Command
from server.documents import EditorGuard
from server.errors import Conflict, NotFound
from server.observer import DID_WRITE
from server.params import RevertParams

if TYPE_CHECKING:
    from server.host import CommandHost


def revert(host: CommandHost, params: RevertParams) -> dict[str, Any]:
    if host.runs.is_active(params.run_id):
        raise Conflict(f"run {params.run_id} is still in progress; cancel it first")
    store = host.store()
    row = store.get_run(params.run_id)
    if row is None:
        raise NotFound(f"no run {params.run_id} in the store {store.path}")
    guard = EditorGuard(host.documents, Path(row.workspace).resolve())
    result = revert_run(store, params.run_id, force=params.force, guard=guard)
    if result is None:
        raise NotFound(f"no run {params.run_id} in the store {store.path}")
    changed = [result.workspace / f.path for f in result.files if f.changed_disk]
    for path in changed:
        host.notify(DID_WRITE, {"uri": path.as_uri()})
    host.runs.paths_changed(changed)
    return result.to_json()


COMMANDS: list[Command[Any]] = [Command("harness.run.revert", RevertParams, revert)]

__all__ = ["COMMANDS"]
