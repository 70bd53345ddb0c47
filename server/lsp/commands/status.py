"""``harness.status``: everything a client that starts after a run needs to restore its
status bar — the active runs, the last budget, memory counts against their caps, the store,
the settings in effect, the watched folders (and whether the harness trusts each), and what
the OpenTelemetry export did (spans ended, exported, dropped; null when off)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.contract import MemoryLimits
from harness.memory.text import GLOBAL
from harness.store import Store
from server.lsp.commands.table import handles
from server.lsp.params import StatusParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


@handles("harness.status")
def status(host: CommandHost, params: StatusParams) -> dict[str, Any]:
    roots = host.folder_roots()
    store = host.store()
    workspace = host.folder(params.workspace_folder) if params.workspace_folder or roots else None
    return {
        "runs": host.runs.status(),
        "lastBudget": host.runs.last_budget,
        "memory": {
            "workspace": memory_usage(store, workspace) if workspace is not None else None,
            "global": memory_usage(store, GLOBAL),
        },
        "storePath": str(store.path),
        "settings": _shown_settings(host.settings.model_dump(mode="json", by_alias=True)),
        "workspaceFolders": [
            {
                "path": str(root),
                "watching": host.watching(root),
                "trusted": _trusted(root, host.settings.trusted),
            }
            for root in roots
        ],
        "telemetry": host.runs.telemetry_status(),
        "languageServers": host.runs.language_servers(),
        "mcp": {str(root): _mcp(root, host.settings.trusted) for root in roots},
    }


def _trusted(root: Path, trusted: bool | None) -> bool:
    """Whether the harness trusts ``root`` (§6.3): the client's verdict when it sent one, else
    the user's list — what a client reads before it uses a workspace's own settings that run
    something or raise a cap (issue 30, finding 3). A policy file that does not load: no."""
    from harness.errors import ConfigError
    from harness.policy import Policy

    try:
        return Policy.load(root, client_trusted=trusted).trusted
    except ConfigError:
        return False


def _mcp(root: Path, trusted: bool | None) -> list[dict[str, Any]] | dict[str, str]:
    """The folder's MCP servers (§15), none started to be listed."""
    import os

    from harness.errors import ConfigError
    from harness.mcp.runtime import Where, configured_status
    from harness.policy import Policy

    try:
        policy = Policy.load(root, client_trusted=trusted)
        where = Where(root, policy.trusted, policy.user_config, policy.exec_config)
        return configured_status(where, os.environ)
    except ConfigError as exc:
        return {"error": str(exc)}


def _shown_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings as status shows them: a store URL without its password (§12)."""
    from harness.store.connection import shown

    if settings.get("storePath"):
        settings["storePath"] = shown(settings["storePath"])
    return settings


def memory_usage(store: Store, scope: str | Path) -> dict[str, Any]:
    """A scope's notes and characters against the caps runs enforce."""
    limits = MemoryLimits()
    return {
        **store.memory_usage(scope).to_json(),
        "maxEntries": limits.max_entries,
        "maxChars": limits.max_chars,
    }


__all__ = ["memory_usage"]
