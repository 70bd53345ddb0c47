"""Reading a policy file (§6.3): the workspace's ``.harness/policy.toml`` comes with the
repository, which chooses what it is — so only a regular file of bounded size is read. A
FIFO would block the harness at start-up and ``/dev/zero`` would fill its memory; both are
refused with a ``ConfigError`` naming the file, before a byte is read. Symlinks are
followed (a user config kept with one's dotfiles is a symlink); their target is held to
the same rules.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from harness.errors import ConfigError

MAX_POLICY_BYTES = 1024 * 1024


def read_policy_file(path: Path, what: str = "policy file") -> bytes | None:
    """The bytes of ``path``; None when there is no such file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{what} {path} cannot be read: {exc.strerror or exc}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO, socket or device"
            raise ConfigError(
                f"{what} {path} cannot be read: it is {kind}, not a regular file; remove it "
                "or replace it"
            )
        if st.st_size > MAX_POLICY_BYTES:
            raise ConfigError(
                f"{what} {path} is {st.st_size:,} bytes; a policy file is at most "
                f"{MAX_POLICY_BYTES:,}"
            )
        data = os.read(fd, MAX_POLICY_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{what} {path} cannot be read: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    if len(data) > MAX_POLICY_BYTES:  # it grew since fstat
        raise ConfigError(f"{what} {path} is over {MAX_POLICY_BYTES:,} bytes")
    return data


__all__ = ["MAX_POLICY_BYTES", "read_policy_file"]
