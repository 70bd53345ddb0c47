"""What a change of some files did to the files that use them (issue 33: undoing one file
of a rename leaves the other calling a name that no longer exists). Each of the ``others``
(unchanged themselves) is asked twice of a type-aware server: with the changed files opened
at their text before the change, and at their text now; what is new is reported. A server
whose diagnostics depend on a file's own text alone (the bundled jedi) is not asked."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from harness.errors import ContainmentError
from harness.semantic.model import Diagnostic, DiagnosticsBeside, SemanticUnavailable

if TYPE_CHECKING:
    from harness.workspace import Workspace

MAX_OTHERS = 10


def _texts(files: Mapping[str, bytes | None]) -> dict[str, str]:
    found: dict[str, str] = {}
    for path, data in files.items():
        try:
            if data is not None:
                found[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return found


async def _read(workspace: Workspace, paths: Sequence[str]) -> dict[str, bytes | None]:
    found: dict[str, bytes | None] = {}
    for path in paths:
        try:
            found[path] = await asyncio.to_thread(workspace.read_bytes, path)
        except (ContainmentError, OSError):
            found[path] = None
    return found


Diagnostics = tuple[Diagnostic, ...]


async def others_then_and_now(
    port: object,
    workspace: Workspace,
    before: Mapping[str, bytes | None],
    others: Sequence[str],
    wait_ms: int,
) -> list[tuple[Diagnostics, Diagnostics]]:
    """Each of ``others``'s diagnostics (``others``: readable, unchanged) while the files of
    ``before`` held the bytes given there, and now; the ones the server cannot say left out
    (the caller keeps what is new: ``harness.semantic.after.introduced``)."""
    if not isinstance(port, DiagnosticsBeside) or not before:
        return []
    then = _texts(before)
    now = _texts(await _read(workspace, list(before)))
    found: list[tuple[Diagnostics, Diagnostics]] = []
    for path, data in (await _read(workspace, list(others)[:MAX_OTHERS])).items():
        text = _texts({path: data}).get(path)
        if text is None:
            continue
        try:
            old = await port.diagnostics_beside(path, text, then, wait_ms)
            new = await port.diagnostics_beside(path, text, now, wait_ms)
        except SemanticUnavailable:
            continue
        if old is not None and new is not None:
            found.append((old, new))
    return found


__all__ = ["MAX_OTHERS", "others_then_and_now"]
