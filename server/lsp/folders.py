"""Workspace folders: which directories the client opened, and which one a command means.

A command's ``workspaceFolder`` (a ``file://`` URI or an absolute path) must name one of
the open folders: the agent works where the user pointed the editor, nowhere else. Without
it, the first workspace folder (or the root of a client that sends no folders) is used.
"""

from __future__ import annotations

from pathlib import Path

from pygls.uris import to_fs_path
from pygls.workspace import Workspace as LspWorkspace

from server.lsp.errors import CommandError, Conflict, InvalidParams


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
    resolved = named_folder(given)
    if resolved not in roots:
        known = ", ".join(str(r) for r in roots) or "none"
        raise InvalidParams(
            f"`workspaceFolder` is not an open workspace folder (open folders: {known})"
        )
    return resolved


def named_folder(given: str) -> Path:
    """The folder ``given`` names (a ``file://`` URI or an absolute path), resolved; it need
    not be open (``InvalidParams`` when it is neither)."""
    try:
        path = uri_to_path(given) if given.startswith("file:") else Path(given)
        if path is None or not path.is_absolute():
            raise ValueError("not an absolute path or file:// URI")
        return path.expanduser().resolve()
    except (ValueError, OSError, RuntimeError) as exc:
        raise InvalidParams(f"`workspaceFolder`: {exc}") from None


ALL_FOLDERS = "*"


def listed_folders(roots: list[Path], given: str | None) -> list[Path] | None:
    """The folders whose runs a list shows: the client's folders by default, the one
    ``given`` names, or every folder (``None``) for ``"*"`` (§11 "Scope")."""
    if given is None:
        return roots
    if given == ALL_FOLDERS:
        return None
    return [named_folder(given)]


def in_folders(workspace: str | Path, roots: list[Path]) -> bool:
    """Whether a run's workspace is one of ``roots`` or inside one."""
    try:
        path = Path(workspace).resolve()
    except (OSError, RuntimeError):
        return False
    return any(path.is_relative_to(root) for root in roots)


def check_scope(workspace: str, roots: list[Path], given: str | None, doing: str) -> None:
    """Refuses (``Conflict``) to act on a run of a workspace outside the client's folders
    unless ``given`` names that very workspace (§7: "unless named with its folder").
    ``doing`` says what was asked, e.g. ``revert run 3``."""
    if in_folders(workspace, roots):
        return
    if given not in (None, ALL_FOLDERS) and named_folder(str(given)) in _resolved(workspace):
        return
    open_ = ", ".join(str(r) for r in roots) or "none"
    raise Conflict(
        f"cannot {doing}: it ran in {workspace}, which is not one of this window's folders "
        f'({open_}); to {doing} anyway, name its folder: "workspaceFolder": "{workspace}"'
    )


def check_read_scope(
    workspaces: list[tuple[int, str]], roots: list[Path], given: str | None
) -> None:
    """Refuses (``Conflict``) to read back runs (``(run id, workspace)`` pairs) of a
    workspace outside the client's folders unless ``given`` names it (issue 30): reads are
    scoped like writes — a run's events, steps and files hold that repository's code."""
    for run_id, workspace in workspaces:
        check_scope(workspace, roots, given, f"read run {run_id}")


def _resolved(workspace: str) -> list[Path]:
    try:
        return [Path(workspace).resolve()]
    except (OSError, RuntimeError):
        return []


__all__ = [
    "ALL_FOLDERS",
    "check_scope",
    "folder_roots",
    "in_folders",
    "listed_folders",
    "named_folder",
    "pick_folder",
    "uri_to_path",
]
