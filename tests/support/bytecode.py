"""Compiled bytecode for the processes the tests start. With ``PYTHONDONTWRITEBYTECODE``
set (as some shells and CI runners set it) no ``__pycache__`` is ever written, so every
``harness`` subprocess compiles the project's ~160 modules from source again (~0.3 s of
CPU each, measured in docs/MEASUREMENTS.md). ``share`` compiles them once into a cache
outside the tree and points every later interpreter at it (``PYTHONPYCACHEPREFIX``); the
tree stays free of ``.pyc`` files as the setting asked."""

from __future__ import annotations

import compileall
import os
import sys
from pathlib import Path

PACKAGES = ("harness", "server", "langservers", "tests")


def share(root: Path) -> Path | None:
    """Compile ``root``'s packages into ``.pytest_cache/pyc`` and make it the bytecode
    cache of this process and its children; None (nothing done) when bytecode is written
    as usual or a cache prefix is already chosen."""
    if (
        not sys.flags.dont_write_bytecode
        or sys.pycache_prefix
        or "PYTHONPYCACHEPREFIX" in os.environ
    ):
        return None
    cache = root / ".pytest_cache" / "pyc"
    sys.pycache_prefix = str(cache)
    os.environ["PYTHONPYCACHEPREFIX"] = str(cache)
    for name in PACKAGES:
        compileall.compile_dir(root / name, quiet=2, workers=1)
    return cache


__all__ = ["share"]
