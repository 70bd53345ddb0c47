"""Virtualenvs by any name (§6.3; issue 30, item 2): a directory holding ``pyvenv.cfg`` is a
Python environment whose programs (``bin/*``), ``.pth`` files and ``sitecustomize.py`` run
outside the sandbox the next time anyone starts its interpreter — the user's tests, or the
editor's Python extension probing it. A write inside one is asked, like the runs-later
globs (``.venv/**`` is one of those already, whatever holds it)."""

from __future__ import annotations

import stat
from pathlib import Path

MARKER = "pyvenv.cfg"
# A path deeper than this is not looked at further up (a bound on the stats per write).
_MAX_DEPTH = 64


def virtualenv_of(root: Path, rel: str) -> str | None:
    """The workspace-relative directory of the virtualenv that holds ``rel`` (a directory
    above it with a regular ``pyvenv.cfg``), the innermost; None when there is none."""
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    for depth in range(min(len(parts) - 1, _MAX_DEPTH), 0, -1):
        above = "/".join(parts[:depth])
        try:
            mode = (root / above / MARKER).lstat().st_mode
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(mode):
            return above
    return None


__all__ = ["MARKER", "virtualenv_of"]
