"""``harness.conversation.restore``: a conversation back to before one of its turns — the
files (``harness.revert.restore``) and the context of the next follow-up (issue 33).

Refused (Conflict) while a run of the conversation is in progress and for a conversation
of a folder outside the client's unless ``workspaceFolder`` names it (§11 "Scope"); a turn
the conversation does not have is InvalidParams. Each file put back gets a
``harness/didWrite``."""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.revert.restore import NoSuchTurn, restore
from harness.revert.undo_check import Undone, before_undo
from server.lsp.commands.revert import left_by_undos, written
from server.lsp.commands.table import handles
from server.lsp.documents import EditorGuard
from server.lsp.errors import Conflict, InvalidParams, NotFound
from server.lsp.folders import check_scope
from server.lsp.params import RestoreParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


@handles("harness.conversation.restore")
def restore_turn(host: CommandHost, params: RestoreParams) -> Awaitable[dict[str, Any]]:
    store = host.store()
    runs = store.conversation_runs(params.conversation_id)
    if not runs:
        raise NotFound(f"no conversation {params.conversation_id} in the store {store.path}")
    doing = f"restore conversation {params.conversation_id}"
    check_scope(runs[0].workspace, host.folder_roots(), params.workspace_folder, doing)
    busy = [r.run_id for r in runs if host.runs.is_active(r.run_id)]
    if busy:
        raise Conflict(
            f"run {busy[0]} of the conversation is in progress; cancel it first", runId=busy[0]
        )
    workspace = Path(runs[0].workspace).resolve()
    guard = EditorGuard(host.documents, workspace)
    left = left_by_undos(host, runs[0].run_id)
    before = before_undo(workspace, [p for r in runs for p in store.files_changed(r.run_id)])
    try:
        done = restore(store, runs, params.turn, force=params.force, guard=guard, left=left)
    except NoSuchTurn as exc:
        raise InvalidParams(f"`turn`: {exc}") from None
    written(host, done.workspace, done.files)
    touched = [f.path for f in done.files if f.changed_disk]
    port = host.runs.semantic_port(done.workspace)
    return Undone(done.to_json(), port, done.workspace, before, touched, list(before)).answer()


__all__: list[str] = []
