"""Which of a command's tools the sandbox's private ``/tmp`` would hide (§6.6), to be bound
back read-only.

The sandbox gives a command its own empty ``/tmp``. A project cloned under ``/tmp`` keeps its
``.venv`` there, and a command naming that interpreter (or finding it on ``PATH``) was not
found, or found the system's ``python3`` instead. So every directory on the command's
``PATH``, the directory of a program named by its path, the directory the program resolves
to (through symlinks), and the harness's own interpreter (``sys.executable``, which test
suites and hooks hand to the commands they run, often inside ``sh -c``) are visible
read-only when they lie under ``/tmp``. A
directory called ``bin`` brings its prefix along (``.venv`` for ``.venv/bin``: an
interpreter needs its ``pyvenv.cfg`` and ``lib/``), except ``/tmp`` itself: nothing shows
the host's ``/tmp`` whole, and its other entries stay hidden.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

PRIVATE = Path("/tmp")  # the sandbox's own tmpfs (harness.sandbox.bwrap_argv)


def tool_dirs(program: str, search_path: str | None) -> tuple[Path, ...]:
    """The directories to bind read-only over the private ``/tmp`` for running ``program``
    with ``PATH`` = ``search_path``: absolute, under ``/tmp``, each given once, a parent
    before what it contains."""
    candidates = [Path(d) for d in (search_path or "").split(os.pathsep) if d.startswith("/")]
    found = program if "/" in program else shutil.which(program, path=search_path or "")
    programs = [found] if found is not None and os.path.isabs(found) else []
    if sys.executable:
        programs.append(sys.executable)
    for path in programs:
        candidates += [Path(path).parent, Path(os.path.realpath(path)).parent]
    chosen: set[Path] = set()
    for directory in candidates:
        for seen in (Path(os.path.normpath(directory)), Path(os.path.realpath(directory))):
            if seen.is_relative_to(PRIVATE) and seen != PRIVATE:
                chosen.add(_with_prefix(seen))
    return tuple(sorted(d for d in chosen if not any(_inside(d, other) for other in chosen)))


def _with_prefix(directory: Path) -> Path:
    if directory.name == "bin" and directory.parent != PRIVATE:
        return directory.parent
    return directory


def _inside(path: Path, other: Path) -> bool:
    return path != other and path.is_relative_to(other)


__all__ = ["PRIVATE", "tool_dirs"]
