"""``harness.trust``: record a workspace folder as trusted (or not) in the user config
(§6.3), so its ``.harness/policy.toml`` may allow what it lists — from the next run on.

``{workspaceFolder?, trusted}`` → ``{workspaceFolder, trusted}``: the folder (an open one;
the first without it) and whether the user config trusts it now. Revoking a folder that a
trusted parent folder still covers leaves it trusted, and the user is told why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol.types import MessageType

from harness.policy import default_user_config, record_trust
from server.lsp.commands.table import handles
from server.lsp.params import Folder, Params

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


class TrustParams(Params):
    workspace_folder: Folder | None = None
    trusted: bool


@handles("harness.trust")
def trust(host: CommandHost, params: TrustParams) -> dict[str, Any]:
    root = host.folder(params.workspace_folder)
    change = record_trust(root, params.trusted, config=default_user_config())
    if not params.trusted and change.covered_by is not None:
        host.show(
            f"harness: {root} is still trusted: {change.covered_by} is in the trusted folders "
            f"of {change.config}; remove it there to stop trusting its subfolders",
            MessageType.Warning,
        )
    return {"workspaceFolder": str(change.folder), "trusted": change.trusted}


__all__ = ["TrustParams"]
