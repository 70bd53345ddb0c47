"""Compiled bytecode for the processes the tests start. With ``PYTHONDONTWRITEBYTECODE``
set (as some shells and CI runners set it) no ``__pycache__`` is ever written, so every
``harness`` subprocess compiles the project's ~160 modules from source again (~0.3 s of
CPU each, measured in docs/MEASUREMENTS.md). ``share`` compiles them once, beside the
sources (``__pycache__/`` is ignored by git), where every later interpreter reads them: the
setting stops Python writing bytecode, not reading it. A cache prefix
(``PYTHONPYCACHEPREFIX``) would not do: the installed packages' bytecode is not in it."""

from __future__ import annotations

import compileall
import sys
from pathlib import Path

PACKAGES = ("harness", "server", "langservers", "tests")


def share(root: Path) -> bool:
    """Compile ``root``'s packages when Python will not; False (nothing done) when it
    writes bytecode itself or keeps it under a prefix."""
    if not sys.flags.dont_write_bytecode or sys.pycache_prefix:
        return False
    for name in PACKAGES:
        compileall.compile_dir(root / name, quiet=2, workers=1)
    return True


__all__ = ["share"]
