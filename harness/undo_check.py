"""What an undo broke (issue 33): the diagnostics an undo (a hunk, a file, a run, a
checkpoint) introduced in the files it touched — so "the code is now broken" is never
silent. The one seam the §14 language back ends plug into; until they are wired here, the
answer is ``None`` with the reason."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

NO_SERVER = "no language server"


def undo_diagnostics(workspace: Path, paths: Sequence[str]) -> dict[str, Any]:
    """``{"diagnostics": [...] | None, "diagnosticsReason": str}`` for an undo's result: the
    errors the undo of ``paths`` (workspace-relative) introduced. ``None``: no §14 back end
    answers on this build."""
    del workspace, paths  # read by the §14 back ends, once they are wired here
    return {"diagnostics": None, "diagnosticsReason": NO_SERVER}


__all__ = ["NO_SERVER", "undo_diagnostics"]
