"""Resolving a workspace path that a racing process cannot redirect (§6.2): component by
component from a directory fd of the root, never following a symlink implicitly.

Each component is opened with ``O_PATH | O_NOFOLLOW`` relative to the fd of its parent, so
what is opened is exactly the entry the walk inspected. A symlink is resolved by hand: its
target is read with ``readlinkat`` and walked the same way, hop by hop, each hop checked —
an absolute target must lie under the root, a ``..`` may not climb above it. A directory
swapped for a symlink between two calls is therefore seen as a symlink and walked (or
refused), never followed by the kernel behind the walk's back.

What this does not defend against: a directory the walk already holds being *moved*
outside the root by someone who can write there (the fd follows the directory). Neither
the agent nor a repository can do that without running a command, which the policy and the
sandbox govern.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import stat
from dataclasses import dataclass, field
from pathlib import Path

from harness.closing import Closing
from harness.errors import ContainmentError

MAX_SYMLINK_HOPS = 40  # as the kernel's ELOOP limit
_PATH_FLAGS = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
_OUTSIDE = (
    "resolves through a symlink to outside the workspace; only files inside the workspace "
    "root can be used"
)


@dataclass
class Located(Closing):
    """Where a path ends up inside the root.

    ``parent_fd`` is an ``O_PATH`` fd of the real parent directory; ``name`` the final
    entry in it (``""`` for the root itself); ``real`` the real relative parts of the
    path; ``st`` the entry's ``lstat`` (None when it does not exist, then ``missing``
    holds the components from the nearest existing ancestor down, the first being
    ``name``). ``fd`` is an ``O_PATH`` fd of the entry itself when it exists. Close with
    ``close()`` (or use as a context manager)."""

    parent_fd: int
    name: str
    real: tuple[str, ...]
    st: os.stat_result | None
    fd: int | None = None
    missing: tuple[str, ...] = ()
    _closed: bool = field(default=False, repr=False)

    @property
    def rel(self) -> str:
        return "/".join(self.real) if self.real else "."

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for fd in {self.parent_fd, self.fd}:
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)


def open_root(root: Path) -> int:
    return os.open(root, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)


def locate(root: Path, parts: tuple[str, ...], *, allow_missing: bool = False) -> Located:
    """Walk ``parts`` (already free of ``..`` and ``.``: see ``lexical_check``) from the
    root. Raises ``ContainmentError`` for an escape, ``FileNotFoundError`` for a missing
    component (unless ``allow_missing``), ``NotADirectoryError`` for a file in the middle."""
    walk = _Walk(root)
    try:
        return walk.run(list(parts), allow_missing=allow_missing)
    finally:
        walk.close_stack()


class _Walk:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.stack: list[int] = [open_root(root)]  # fds of the real directories walked
        self.real: list[str] = []
        self.hops = 0

    def close_stack(self) -> None:
        for fd in self.stack:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.stack = []

    def _keep_parent(self) -> int:
        """Detach the current directory's fd from the stack (the caller now owns it)."""
        return self.stack.pop()

    def run(self, todo: list[str], *, allow_missing: bool) -> Located:
        while todo:
            comp = todo.pop(0)
            if comp in ("", "."):
                continue
            if comp == "..":
                self._up()
                continue
            try:
                fd = os.open(comp, _PATH_FLAGS, dir_fd=self.stack[-1])
            except FileNotFoundError:
                if not allow_missing:
                    raise
                return self._missing(comp, todo)
            st = os.fstat(fd)
            if stat.S_ISLNK(st.st_mode):
                os.close(fd)
                self._follow(comp, todo)
                continue
            if not todo:
                real = (*self.real, comp)
                return Located(self._keep_parent(), comp, real, st, fd=fd)
            if not stat.S_ISDIR(st.st_mode):
                os.close(fd)
                raise NotADirectoryError(f"`{'/'.join((*self.real, comp))}` is not a directory")
            self.stack.append(fd)
            self.real.append(comp)
        # The path ended in `..` or `.` after a symlink: the current directory is the answer.
        return self._here()

    def _here(self) -> Located:
        if not self.real:
            root = self.stack[0]
            return Located(os.dup(root), "", (), os.fstat(root), fd=os.dup(root))
        fd = self.stack.pop()
        parent = self.stack.pop()
        return Located(parent, self.real[-1], tuple(self.real), os.fstat(fd), fd=fd)

    def _up(self) -> None:
        if not self.real:
            raise ContainmentError(_OUTSIDE)
        self.real.pop()
        os.close(self.stack.pop())

    def _follow(self, comp: str, todo: list[str]) -> None:
        self.hops += 1
        if self.hops > MAX_SYMLINK_HOPS:
            raise ContainmentError("too many levels of symbolic links")
        try:
            target = os.readlink(comp, dir_fd=self.stack[-1])
        except OSError:
            # Swapped for something else since it was opened: look at it again.
            todo.insert(0, comp)
            return
        if target.startswith("/"):
            inside = _under_root(self.root, target)
            if inside is None:
                raise ContainmentError(_OUTSIDE)
            while len(self.stack) > 1:
                os.close(self.stack.pop())
            self.real = []
            todo[:0] = list(inside)
        else:
            todo[:0] = [p for p in target.split("/") if p]

    def _missing(self, comp: str, todo: list[str]) -> Located:
        rest = [p for p in (comp, *todo) if p not in ("", ".")]
        if ".." in rest:
            # A `..` below a directory that does not exist cannot be resolved safely.
            raise ContainmentError("climbs with `..` out of a directory that does not exist")
        real = (*self.real, *rest)
        return Located(self._keep_parent(), rest[0], real, None, missing=tuple(rest))


def _under_root(root: Path, target: str) -> tuple[str, ...] | None:
    """The parts of an absolute symlink target relative to the root, or None if outside
    (decided lexically; the rest of the walk checks every hop again)."""
    norm = posixpath.normpath(target)
    base = str(root)
    if norm == base:
        return ()
    if not norm.startswith(base.rstrip("/") + "/"):
        return None
    return tuple(p for p in norm[len(base.rstrip("/")) + 1 :].split("/") if p)


def reopen(loc: Located, flags: int) -> int:
    """Open the located entry for I/O relative to its parent, never following a symlink,
    and make sure it is still the very inode the walk inspected."""
    flags |= os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY
    fd = os.open(loc.name, flags, dir_fd=loc.parent_fd)
    assert loc.st is not None
    st = os.fstat(fd)
    if (st.st_dev, st.st_ino) != (loc.st.st_dev, loc.st.st_ino):
        os.close(fd)
        raise ContainmentError(f"`{loc.rel}` changed while it was being opened; try again")
    return fd


__all__ = ["MAX_SYMLINK_HOPS", "Located", "locate", "open_root", "reopen"]
