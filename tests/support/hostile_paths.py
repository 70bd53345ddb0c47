"""The path segments the hostile-path property tests build their paths from: climbing out,
the root-ish and empty parts, names that mean something to a shell, git or Windows, and a
NUL. Each test adds the names of the tree it lays out (its links, files and folders)."""

from __future__ import annotations

SEGMENTS = ["..", ".", "", "src", "a.py", ".git", "config", "~", "new", "C:", "\x00"]
