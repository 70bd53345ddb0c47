"""The programs the harness itself runs (§6.2), which the agent never writes when the
workspace holds them: the interpreter's environment (a venv: all of it — ``bin/`` with
``python``, ``harness-lsp`` and ``rg``, and ``site-packages``, whose ``.pth`` files run at
every start; else the interpreter's ``bin/``), the ``rg`` resolved once per process, and
the workspace's own ``.venv`` that the editor plugins start ``harness-lsp`` from.

A file there that the agent rewrote would run unsandboxed, with the provider's key in its
environment: ``rg`` at the next ``grep`` of the same run, ``harness-lsp`` at the editor's
next start (issue 20, item 2).

``rg`` is resolved once, to an absolute path, and that path is what every search runs: the
``ripgrep`` wheel's ``rg`` beside the interpreter, else one on an absolute ``PATH`` entry
(a relative entry such as ``.`` would name a file in whatever directory the harness was
started in — a workspace's).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from pathlib import Path

# Where the editor plugins look for the server in a workspace (editors/nvim, editors/vscode).
WORKSPACE_VENV = ".venv"
SERVER_PROGRAM = "harness-lsp"


@functools.cache
def resolved_rg() -> str | None:
    """The absolute path of the ``rg`` every search runs, found once per process; None when
    there is none."""
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute())
    path = os.pathsep.join(
        p for p in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(p)
    )
    found = shutil.which("rg", path=path)
    return None if found is None else str(Path(found).absolute())


def interpreter_places() -> tuple[tuple[Path, str], ...]:
    """The interpreter's environment, with what it is in words."""
    places: list[tuple[Path, str]]
    places = []
    if os.path.isabs(sys.executable):  # "" or a relative name would stand for the cwd
        places.append((Path(sys.executable).parent, "the directory of its interpreter"))
    if sys.prefix != sys.base_prefix:
        places.append((Path(sys.prefix), "the virtual environment it runs from"))
    else:
        places.append((Path(sys.prefix) / "bin", "the programs of its interpreter"))
    return tuple(places)


def program_places() -> tuple[tuple[Path, str], ...]:
    """``interpreter_places`` and the ``rg`` that searches run (its name and real file)."""
    places = list(interpreter_places())
    rg = resolved_rg()
    if rg is not None:
        places.append((Path(rg), "the ripgrep it searches with"))
        places.append((Path(rg).resolve(), "the ripgrep it searches with"))
    return tuple(places)


def workspace_server(root: Path) -> tuple[Path, str]:
    """What an editor plugin starts in ``root``: ``.venv/bin/harness-lsp`` — the whole
    ``.venv`` when that program is there (its ``python`` and libraries run with it)."""
    venv = root / WORKSPACE_VENV
    program = venv / "bin" / SERVER_PROGRAM
    why = f"the editors start {SERVER_PROGRAM} from it"
    if os.path.lexists(program):
        return venv, why
    return program, why


__all__ = [
    "SERVER_PROGRAM",
    "WORKSPACE_VENV",
    "interpreter_places",
    "program_places",
    "resolved_rg",
    "workspace_server",
]
