"""The source files of one language in a workspace, as a server would find them: walked
from the root, hidden folders and the usual dependency and build folders skipped, at most
``MAX_OTHERS`` files of at most ``MAX_BYTES`` each, UTF-8 only."""

from __future__ import annotations

import os
from pathlib import Path

MAX_OTHERS = 200
MAX_BYTES = 512_000
SKIPPED = frozenset(
    {"node_modules", "__pycache__", "venv", "build", "dist", "target", "site-packages"}
)


def sources(root: Path, extensions: tuple[str, ...], but: str) -> list[tuple[str, str]]:
    """``(workspace-relative path, text)`` of the files under ``root`` ending in one of
    ``extensions``, ``but`` itself left out."""
    found: list[tuple[str, str]] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED)
        for name in sorted(files):
            if not name.endswith(extensions):
                continue
            rel = (Path(folder) / name).relative_to(root).as_posix()
            text = _text(Path(folder) / name) if rel != but else None
            if text is not None:
                found.append((rel, text))
                if len(found) >= MAX_OTHERS:
                    return found
    return found


def _text(path: Path) -> str | None:
    try:
        if path.is_symlink() or path.stat().st_size > MAX_BYTES:
            return None
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


__all__ = ["MAX_OTHERS", "sources"]
