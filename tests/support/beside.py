"""What lies next to a workspace root, for containment tests: a write that escapes anywhere
beside the root — not only into ``outside/`` — changes this snapshot."""

from __future__ import annotations

import os
from pathlib import Path


def everything_beside(root: Path) -> dict[str, bytes | str]:
    """Every entry of the root's parent tree but the root itself: files by content,
    directories and symlinks by kind and target."""
    found: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root.parent):
        here = Path(dirpath)
        if here == root:
            dirnames.clear()
            continue
        for name in [*dirnames, *filenames]:
            path = here / name
            if path == root:
                continue
            if path.is_symlink():
                found[str(path)] = f"-> {os.readlink(path)}"
            elif path.is_dir():
                found[str(path)] = "dir"
            else:
                found[str(path)] = path.read_bytes()
    return found
