"""``lstat`` of a listed name that a racing process cannot redirect (§6.2).

A search gets its file names from ripgrep, which walks the tree by path: a directory
swapped for a symlink to outside the root while it walks is followed, and the names it
lists under it are names outside. ``os.lstat(root + "/" + rel)`` would follow that symlink
too (only the last component is not followed). ``DirFds`` opens each directory of a listed
name one component at a time from the root's fd with ``O_NOFOLLOW`` and takes the entry's
``lstat`` relative to its parent's fd: a name whose directories are not real directories
inside the root, at that moment, is not there.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from harness.closing import Closing
from harness.workspace.resolver import open_root

_DIR_FLAGS = os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC
_KEEP_MAX = 512  # directory fds held at once; beyond it the cache starts over


class DirFds(Closing):
    """The directories of one search's listed names, opened as they are needed."""

    def __init__(self, root: Path) -> None:
        self._root = open_root(root)
        self._fds: dict[str, int] = {}

    def close(self) -> None:
        self.close_dirs()
        with contextlib.suppress(OSError):
            os.close(self._root)

    def lstat(self, rel: str) -> os.stat_result | None:
        """The entry ``rel`` (a relative POSIX path, no ``.``/``..``) names inside the root,
        not following any symlink on the way; None when it is not there."""
        parent, _, name = rel.rpartition("/")
        fd = self.dir_fd(parent)
        if fd is None or name in ("", ".", ".."):
            return None
        try:
            return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            return None

    def dir_fd(self, rel_dir: str) -> int | None:
        """An ``O_PATH`` fd of the real directory ``rel_dir`` ("" for the root), or None."""
        if not rel_dir:
            return self._root
        known = self._fds.get(rel_dir)
        if known is not None:
            return known
        if len(self._fds) >= _KEEP_MAX:
            self.close_dirs()
        current, walked = self._root, ""
        for comp in rel_dir.split("/"):
            walked = f"{walked}/{comp}" if walked else comp
            cached = self._fds.get(walked)
            if cached is None:
                cached = _open_dir(current, comp)
                if cached is None:
                    return None
                self._fds[walked] = cached
            current = cached
        return current

    def close_dirs(self) -> None:
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = {}


def _open_dir(parent: int, comp: str) -> int | None:
    if comp in ("", ".", ".."):
        return None
    try:
        fd = os.open(comp, _DIR_FLAGS, dir_fd=parent)
    except OSError:
        return None
    if not stat.S_ISDIR(os.fstat(fd).st_mode):  # a symlink opened as itself
        os.close(fd)
        return None
    return fd


__all__ = ["DirFds"]
