"""Workspace folders: which directories the client opened, and which one a command means.

A command's ``workspaceFolder`` (a ``file://`` URI or an absolute path) must name one of
the open folders: the agent works where the user pointed the editor, nowhere else. Without
it, the first workspace folder (or the root of a client that sends no folders) is used.
"""

from __future__ import annotations

from pathlib import Path

from pygls.uris import to_fs_path
from pygls.workspace import Workspace as LspWorkspace

from server.errors import CommandError, InvalidParams


def uri_to_path(uri: str) -> Path | None:
    """The filesystem path of a ``file:`` URI; None for any other scheme."""
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return Path(path) if path else None


def folder_roots(workspace: LspWorkspace | None) -> list[Path]:
    """The open folders, resolved, in the client's order (the root when it sent none)."""
    if workspace is None:
        return []
    uris = [f.uri for f in workspace.folders.values()]
    if not uris and workspace.root_uri:
        uris = [workspace.root_uri]
    roots: list[Path] = []
    for uri in uris:
        path = uri_to_path(uri)
        if path is None:
            continue
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError):
            continue
        if resolved not in roots:
            roots.append(resolved)
    return roots


def pick_folder(roots: list[Path], given: str | None) -> Path:
    """The folder a command works in: ``given`` when it is one of ``roots``, else the first."""
    if given is None:
        if not roots:
            raise CommandError(
                "no workspace folder is open; open a folder in the editor "
                "(or use scope `global` for memory)"
            )
        return roots[0]
    try:
        path = uri_to_path(given) if given.startswith("file:") else Path(given)
        if path is None or not path.is_absolute():
            raise ValueError("not an absolute path or file:// URI")
        resolved = path.expanduser().resolve()
    except (ValueError, OSError, RuntimeError) as exc:
        raise InvalidParams(f"`workspaceFolder`: {exc}") from None
    if resolved not in roots:
        known = ", ".join(str(r) for r in roots) or "none"
        raise InvalidParams(
            f"`workspaceFolder` is not an open workspace folder (open folders: {known})"
        )
    return resolved


__all__ = ["folder_roots", "pick_folder", "uri_to_path"]
