"""Hard links (§6.2): a file whose other names are not all inside the root is refused, since
through it the agent would read or replace the content of a file outside.

How it is decided: a regular file with ``st_nlink == 1`` has no other name — the common
case costs nothing. For ``st_nlink > 1`` the verdict comes from one of two places:

- A search (grep, find) already holds a listing of the root (ripgrep's): it counts the
  names of each multi-linked inode in that listing, with the ``lstat`` it makes anyway
  (``harness.tools.scope``), and ``remember``s the verdicts — at most one pass over the
  listing per call, never a walk of the tree per link. A name in an ignored directory
  (``node_modules``, ``.venv``, ``.gitignore``d) is not in the listing, so such a file is
  refused by a search: refusing is the safe side.
- A single path (read_file, a write) with no verdict yet: the root is walked once for that
  inode (never following symlinks, never leaving its file system) counting the entries that
  are this inode; if fewer than ``st_nlink`` are found, some name lies outside. The walk
  compares ``d_ino`` from ``readdir`` first (no ``stat`` per entry); only if that finds too
  few (file systems such as overlayfs may report another inode number there) is every file
  ``lstat``ed before refusing.

Verdicts are cached per ``(device, inode, link count, ctime)``: adding or removing a link,
or renaming one, changes the ctime, so a cached verdict does not go stale (a directory
holding the other name, renamed out of the root, does not change the file's ctime: a limit
stated in docs/SECURITY.md).
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

_CACHE_MAX = 4096


class HardLinks:
    """The hard-link verdicts of one workspace root."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._lock = threading.Lock()
        self._verdicts: dict[tuple[int, int, int, int], bool] = {}

    def all_inside(self, st: os.stat_result) -> bool:
        """Whether every name of this file lies inside the root (walking the root for this
        inode when no verdict is known: for single paths, never for searches)."""
        cached = self.known(st)
        if cached is not None:
            return cached
        found = self._count(st, by_dirent=True)
        if found < st.st_nlink:
            found = self._count(st, by_dirent=False)
        verdict = found >= st.st_nlink
        self.remember(st, verdict)
        return verdict

    def known(self, st: os.stat_result) -> bool | None:
        """The verdict already known for this file (True: a single name), or None."""
        if not stat.S_ISREG(st.st_mode) or st.st_nlink <= 1:
            return True
        with self._lock:
            return self._verdicts.get(_key(st))

    def remember(self, st: os.stat_result, verdict: bool) -> None:
        """Record a verdict found elsewhere (a search counting names in its listing)."""
        with self._lock:
            if len(self._verdicts) >= _CACHE_MAX:
                self._verdicts.clear()
            self._verdicts[_key(st)] = verdict

    def _count(self, target: os.stat_result, *, by_dirent: bool) -> int:
        found = 0
        pending = [str(self._root)]
        while pending:
            try:
                with os.scandir(pending.pop()) as it:
                    entries = list(it)
            except OSError:
                continue
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.stat(follow_symlinks=False).st_dev == target.st_dev:
                            pending.append(entry.path)
                        continue
                    if by_dirent and entry.inode() != target.st_ino:
                        continue
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if (st.st_dev, st.st_ino) == (target.st_dev, target.st_ino):
                    found += 1
        return found


def _key(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_nlink, st.st_ctime_ns)


__all__ = ["HardLinks"]
