"""Who may read the store (§6.7): the store file, its ``-wal`` and ``-shm``, and every
directory the store creates are the user's alone — ``0600`` and ``0700`` whatever the umask.

An existing store with looser permissions (made by an older harness, or copied in) is
tightened when it is opened if the user owns the file; a file owned by someone else cannot be
changed by us, so it is left as it is and a warning is logged — refusing to open it would
only lock the user out of a store an administrator gave them. Existing directories are never
changed: ``--store`` may point into any directory (``/tmp``, a project), which is not ours.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700
SIDE_SUFFIXES = ("-wal", "-shm", "-journal")  # SQLite's files beside the database
_GROUP_OTHER = 0o077

log = logging.getLogger("harness.store")


def prepare(path: Path) -> None:
    """Before SQLite opens ``path``: create the missing directories (``0700``) and the file
    (``0600``), or tighten the file that exists (``secure``)."""
    make_private_dirs(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        pass
    else:
        try:
            os.fchmod(fd, FILE_MODE)  # exactly 0600, whatever the umask took away or not
        finally:
            os.close(fd)
    secure([path])


def make_private_dirs(directory: Path) -> None:
    """Create ``directory`` and its missing parents, each ``0700``; leave existing ones."""
    missing: list[Path] = []
    current = directory
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, DIR_MODE)
        except FileExistsError:
            continue  # made meanwhile by someone else: not ours to change
        os.chmod(d, DIR_MODE)


def side_files(path: Path) -> list[Path]:
    """SQLite's files beside the database at ``path``."""
    return [path.with_name(path.name + suffix) for suffix in SIDE_SUFFIXES]


def secure(paths: list[Path]) -> None:
    """Take group and other permissions off each of ``paths`` that exists: at once when the
    user owns it, else warn (see the module docstring)."""
    for candidate in paths:
        try:
            st = os.stat(candidate)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode) or not st.st_mode & _GROUP_OTHER:
            continue
        mode = stat.S_IMODE(st.st_mode)
        if st.st_uid == os.getuid():
            os.chmod(candidate, mode & ~_GROUP_OTHER)
        else:
            log.warning(
                "the store file %s is readable by others (mode %o) and owned by another user;"
                " ask its owner to run: chmod 600 %s",
                candidate,
                mode,
                candidate,
            )


__all__ = ["DIR_MODE", "FILE_MODE", "make_private_dirs", "prepare", "secure", "side_files"]
