"""What an undo broke (issue 33): the diagnostics an undo (a hunk, a file, a run, a
checkpoint) introduced in the files it touched — so "the code is now broken" is never
silent. The §14 back end answers (the headless language servers of ``langservers``, through
the ``SemanticPort`` the front holds): each touched file's errors and warnings before the
undo (its text then) and after (on disk now); what is new is reported. No port, or no
server for the file's language: ``None`` with the reason."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.semantic import SemanticPort
    from harness.semantic.model import Diagnostic

NO_SERVER = "no language server"
WAIT_MS = 1_500  # how long a server may take to publish a file's diagnostics


def before_undo(workspace: Path, paths: list[str]) -> dict[str, bytes | None]:
    """The bytes of ``paths`` as they are now, read before an undo changes them (None: no
    such file, or unreadable)."""
    found: dict[str, bytes | None] = {}
    for path in paths:
        try:
            found[path] = (workspace / path).read_bytes()
        except OSError:
            found[path] = None
    return found


async def undo_diagnostics(
    port: SemanticPort | None,
    workspace: Path,
    before: Mapping[str, bytes | None],
    touched: list[str],
    written: Sequence[str] = (),
) -> dict[str, Any]:
    """``{"diagnostics": [...] | None, "diagnosticsReason": str}`` for an undo's result: the
    errors and warnings the undo of ``touched`` (workspace-relative; ``before`` their bytes
    before it) introduced in them and in the rest of ``written`` (the files the undone runs
    wrote: undoing one file of a rename breaks the other). ``None``: no language server
    answered for any of them."""
    if port is None or not touched:
        return {"diagnostics": None if port is None else [], "diagnosticsReason": _why(port)}
    from harness.semantic.after import diagnostics_introduced

    others = [p for p in dict.fromkeys(written) if p not in touched]
    found = await diagnostics_introduced(
        port, workspace, {p: before.get(p) for p in touched}, _wait_ms(port), others
    )
    if found is None:
        return {"diagnostics": None, "diagnosticsReason": NO_SERVER}
    return {"diagnostics": [_row(d) for d in found], "diagnosticsReason": ""}


@dataclass(frozen=True)
class Undone:
    """An undo's result (``result``, its JSON) still to be joined by the diagnostics it
    introduced in ``touched`` (their bytes ``before`` it), asked of ``port``."""

    result: dict[str, Any]
    port: SemanticPort | None
    workspace: Path
    before: Mapping[str, bytes | None]
    touched: list[str]
    written: Sequence[str] = ()

    async def answer(self) -> dict[str, Any]:
        found = await undo_diagnostics(
            self.port, self.workspace, self.before, self.touched, self.written
        )
        return {**self.result, **found}


def _wait_ms(port: SemanticPort) -> int:
    """The user's ``diagnosticsWaitMs`` when after-edit diagnostics are on, else WAIT_MS."""
    return port.after_edit_wait_ms() or WAIT_MS


def _why(port: SemanticPort | None) -> str:
    return NO_SERVER if port is None else ""


def _row(d: Diagnostic) -> dict[str, Any]:
    return {
        "path": d.path,
        "line": d.span.start.line + 1,
        "severity": d.severity.value,
        "message": d.message,
        "source": d.source,
    }


__all__ = ["NO_SERVER", "Undone", "before_undo", "undo_diagnostics"]
