"""The workspace root: path containment that cannot be raced, bounded reads of regular
files, atomic writes, hard-link checks, ignore rules and globs (§6.2).

Modules: ``root`` (``Workspace``), ``resolver`` (component-by-component resolution from a
directory fd), ``files`` (reading through an fd, hashes, atomic writes), ``links`` (hard
links with a name outside), ``ignores`` (``.gitignore``), ``globs`` (``PathGlob``).
"""

from typing import TYPE_CHECKING

from harness.exports import lazy_exports

if TYPE_CHECKING:
    from harness.workspace.files import (
        FULL_HASH_MAX_BYTES,
        NotRegularFileError,
        OpenFile,
        PreparedWrite,
        file_hash,
    )
    from harness.workspace.globs import GlobSet, PathGlob
    from harness.workspace.ignores import ALWAYS_SKIPPED, IgnoreRules
    from harness.workspace.root import PROTECTED_DIRS, BeforeWrite, Workspace, lexical_check

# Loaded on first use: ``harness.workspace.identity`` alone does not load pathspec.
__getattr__ = lazy_exports(
    __name__,
    {
        "files": (
            "FULL_HASH_MAX_BYTES",
            "NotRegularFileError",
            "OpenFile",
            "PreparedWrite",
            "file_hash",
        ),
        "globs": ("GlobSet", "PathGlob"),
        "ignores": ("ALWAYS_SKIPPED", "IgnoreRules"),
        "root": ("PROTECTED_DIRS", "BeforeWrite", "Workspace", "lexical_check"),
    },
)

__all__ = [
    "ALWAYS_SKIPPED",
    "FULL_HASH_MAX_BYTES",
    "PROTECTED_DIRS",
    "BeforeWrite",
    "GlobSet",
    "IgnoreRules",
    "NotRegularFileError",
    "OpenFile",
    "PathGlob",
    "PreparedWrite",
    "Workspace",
    "file_hash",
    "lexical_check",
]
