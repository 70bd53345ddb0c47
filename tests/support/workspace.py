"""A real workspace folder for a test: made under the test's tmp_path, with the files it
names."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

PARSER_PY = "def parse(x):\n    return x\n"
"""The one-function module the scripted runs read and then edit."""


def make_workspace(parent: Path, files: Mapping[str, str] | None = None, name: str = "ws") -> Path:
    """Create ``parent/name`` and write ``files`` (relative path -> text) into it."""
    root = parent / name
    root.mkdir(parents=True)
    return write_files(root, files or {})


def write_files(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root``, making folders as needed."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
