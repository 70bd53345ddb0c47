"""Files opened through the race-free resolver: reading a regular file through its fd, the
content hash, and atomic writes made relative to the parent directory's fd (§6.2, §6.5).

Only regular files are opened for reading; a FIFO, socket or device is refused from its
``lstat`` before it is opened for I/O, so nothing ever blocks in ``open()``. A write creates
its temp file with ``dir_fd``, fsyncs it, keeps the mode, and renames it over the target
with ``src_dir_fd``/``dst_dir_fd`` — the directory written is the one the walk checked.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import stat
from dataclasses import dataclass

from harness.closing import Closing
from harness.types import FileWrite
from harness.workspace.resolver import Located, reopen

# Files up to this size are hashed whole (sha256). Beyond it the hash is a fingerprint of
# size, mtime, ctime and inode: a ranged read of a 2 GB log must not read 2 GB to hash it.
FULL_HASH_MAX_BYTES = 32 * 1024 * 1024
# An existing file is overwritten only up to this size: its old bytes are kept for revert.
MAX_OVERWRITE_BYTES = 32 * 1024 * 1024
_CHUNK = 1024 * 1024


def shown_name(name: str) -> str:
    """A file name as the model and the store see it: valid UTF-8 whatever the disk holds.
    A name that is not UTF-8 (decoded by Python with surrogates) shows each undecodable byte
    escaped, ``bad\\xff.txt`` (§5); any other name is unchanged."""
    return os.fsencode(name).decode("utf-8", errors="backslashreplace")


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotRegularFileError(OSError):
    """A FIFO, socket or device where a regular file was expected; never opened for I/O."""


def kind_of(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def check_regular(rel: str, st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"`{rel}` is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise NotRegularFileError(
            f"`{rel}` is {kind_of(st.st_mode)}, not a regular file; only regular files are read "
            "or written"
        )


@dataclass
class OpenFile(Closing):
    """A regular file open for reading: its fd, real relative path and ``fstat``."""

    fd: int
    rel: str
    st: os.stat_result

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def read(self, limit: int | None = None) -> bytes:
        """Up to ``limit`` bytes (all when None) from the start, in bounded chunks."""
        return read_fd(self.fd, limit)

    def read_at(self, offset: int, size: int) -> bytes:
        return os.pread(self.fd, size, offset)

    def content_hash(self) -> str:
        return file_hash(self.fd, self.st)


def open_located(loc: Located) -> OpenFile:
    """Open a located regular file for reading (``O_NONBLOCK``: even a FIFO swapped in after
    the check could not block the open; ``reopen`` then refuses it as another inode)."""
    assert loc.st is not None
    check_regular(loc.rel, loc.st)
    fd = reopen(loc, os.O_RDONLY | os.O_NONBLOCK)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):  # pragma: no cover - reopen compares the inode already
        os.close(fd)
        check_regular(loc.rel, st)
    return OpenFile(fd, loc.rel, st)


def read_fd(fd: int, limit: int | None = None) -> bytes:
    chunks: list[bytes] = []
    got = 0
    while limit is None or got < limit:
        want = _CHUNK if limit is None else min(_CHUNK, limit - got)
        chunk = os.pread(fd, want, got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def file_hash(fd: int, st: os.stat_result) -> str:
    """sha256 of the bytes for a file up to ``FULL_HASH_MAX_BYTES``, else a fingerprint."""
    if st.st_size > FULL_HASH_MAX_BYTES:
        return f"stat:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"
    digest = hashlib.sha256()
    offset = 0
    while chunk := os.pread(fd, _CHUNK, offset):
        digest.update(chunk)
        offset += len(chunk)
    return digest.hexdigest()


@dataclass
class PreparedWrite(Closing):
    """A write whose target has been located and whose old bytes have been read, not yet
    made: the caller announces it (``before_write``) and then ``commit``s or ``close``s."""

    loc: Located
    rel: str
    before: bytes | None
    mode: int | None

    def close(self) -> None:
        self.loc.close()

    def commit(self, data: bytes) -> FileWrite:
        parent, name = self._make_parents()
        try:
            _replace_atomically(parent, name, data, self.mode)
        finally:
            if parent != self.loc.parent_fd:
                os.close(parent)
        return FileWrite(path=self.rel, before=self.before, after=data)

    def _make_parents(self) -> tuple[int, str]:
        """Create the missing directories one by one from the nearest existing ancestor,
        each opened with ``O_NOFOLLOW`` (a symlink raced in is refused, not followed)."""
        if not self.loc.missing:
            return self.loc.parent_fd, self.loc.name
        current = self.loc.parent_fd
        for comp in self.loc.missing[:-1]:
            with contextlib.suppress(FileExistsError):
                os.mkdir(comp, 0o777, dir_fd=current)
            flags = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            nxt = os.open(comp, flags, dir_fd=current)
            if current != self.loc.parent_fd:
                os.close(current)
            current = nxt
        return current, self.loc.missing[-1]


def prepare(loc: Located) -> PreparedWrite:
    """Read what the target holds now (bounded) and its mode; refuse what is not a regular
    file. ``loc`` is owned by the result."""
    try:
        if loc.st is None:
            return PreparedWrite(loc, loc.rel, None, None)
        check_regular(loc.rel, loc.st)
        if loc.st.st_size > MAX_OVERWRITE_BYTES:
            raise OSError(
                f"`{loc.rel}` is {loc.st.st_size:,} bytes; the agent overwrites files up to "
                f"{MAX_OVERWRITE_BYTES:,} bytes (their old content is kept for revert)"
            )
        with open_located(loc) as f:
            before = f.read()
        return PreparedWrite(loc, loc.rel, before, stat.S_IMODE(loc.st.st_mode))
    except BaseException:
        loc.close()
        raise


def _replace_atomically(parent: int, name: str, data: bytes, mode: int | None) -> None:
    tmp = f".{name[:200]}.{secrets.token_hex(4)}.harness-tmp"
    # Created with 0o666 so the kernel applies the umask to a new file, as any editor would.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, 0o666, dir_fd=parent)
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=parent)
        raise
    _fsync_dir(parent)


def _fsync_dir(parent: int) -> None:
    with contextlib.suppress(OSError):
        dfd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=parent)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


__all__ = [
    "FULL_HASH_MAX_BYTES",
    "MAX_OVERWRITE_BYTES",
    "NotRegularFileError",
    "OpenFile",
    "PreparedWrite",
    "check_regular",
    "file_hash",
    "kind_of",
    "open_located",
    "prepare",
    "read_fd",
    "shown_name",
]
