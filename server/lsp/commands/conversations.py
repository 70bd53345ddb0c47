"""``harness.conversations``: the conversations of the client's workspace folders, newest
first (§7, §11): id (its first run's), first goal, runs, last outcome, spent tokens, times.
``workspaceFolder`` names another folder, ``"*"`` lists every conversation in the store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from server.lsp.commands.table import handles
from server.lsp.folders import listed_folders
from server.lsp.params import ConversationsParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


@handles("harness.conversations")
def conversations(host: CommandHost, params: ConversationsParams) -> list[dict[str, Any]]:
    folders = listed_folders(host.folder_roots(), params.workspace_folder)
    workspaces = None if folders is None else [str(f) for f in folders]
    rows = host.store().conversations(workspaces, limit=params.limit, before=params.before)
    return [row.to_json() for row in rows]


__all__: list[str] = []
