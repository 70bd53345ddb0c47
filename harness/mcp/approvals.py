"""Which workspace servers the user approved (§15): ``mcp-approvals.json`` beside the user
config, keyed to the workspace folder and the server's name, holding the hash of what runs
(``ServerConfig.fingerprint``). A changed command under an approved name is asked again;
nothing in a repository can write here."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from harness.mcp.config import ServerConfig

FILE_NAME = "mcp-approvals.json"


def approvals_file(user_config: Path) -> Path:
    return user_config.parent / FILE_NAME


def _key(root: Path, name: str) -> str:
    return f"{root}::{name}"


def _read(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}


def approved(path: Path | None, root: Path, server: ServerConfig) -> bool:
    """Whether the user approved exactly what ``server`` runs, in the folder ``root``."""
    if path is None:
        return False
    return _read(path).get(_key(root, server.name)) == server.fingerprint()


def approval_state(path: Path | None, root: Path, server: ServerConfig) -> str:
    """``approved``, ``changed`` (approved before, runs something else now) or ``not approved``."""
    if path is None:
        return "not approved"
    held = _read(path).get(_key(root, server.name))
    if held is None:
        return "not approved"
    return "approved" if held == server.fingerprint() else "changed since approved"


def approve(path: Path, root: Path, server: ServerConfig) -> None:
    """Record the user's approval of what ``server`` runs in ``root`` (atomically, 0600)."""
    data = _read(path)
    data[_key(root, server.name)] = server.fingerprint()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".mcp-approvals.")
    with os.fdopen(fd, "w") as out:
        json.dump(data, out, indent=2, sort_keys=True)
    os.replace(tmp, path)


__all__ = ["FILE_NAME", "approval_state", "approvals_file", "approve", "approved"]
