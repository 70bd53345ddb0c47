"""Which process owns a run, and whether it is gone (§5: a run left ``running`` by a process
that died is marked ``interrupted`` when a store is next opened).

A process is named by its pid, host name, and ``started``: ``"<boot id>:<pid namespace>:<start
time>"`` from ``/proc`` (the start time in clock ticks since boot, field 22 of
``/proc/<pid>/stat``), so a pid reused by a later process — or by the same number after a
reboot — is not mistaken for the owner. We only ever say "gone" when we can tell: another
host, or another pid namespace (a container), is never judged.
"""

from __future__ import annotations

import functools
import getpass
import os
import socket
from dataclasses import dataclass
from pathlib import Path

_PROC = Path("/proc")
_DEAD_STATES = frozenset({"Z", "X"})  # a zombie or a dead task has stopped running
_START_FIELD = 19  # starttime (field 22) counted from the state (field 3)


@dataclass(frozen=True)
class ProcessOwner:
    pid: int
    host: str
    started: str | None  # None where there is no /proc (the pid alone is checked there)


def author() -> str:
    """Who writes, as the store records it on runs, notes and recalls (§12): ``user@host``."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container, say)
        user = str(os.getuid())
    return f"{user}@{socket.gethostname()}"


def current_owner() -> ProcessOwner:
    """This process (computed afresh: a forked child is a different owner)."""
    pid = os.getpid()
    return ProcessOwner(pid=pid, host=socket.gethostname(), started=_started(pid))


def is_gone(owner: ProcessOwner) -> bool:
    """True when the owner has certainly stopped: same host and pid namespace, and no such
    pid, a zombie, or another process under its pid; after a reboot, always."""
    if owner.host != socket.gethostname():
        return False
    if owner.started is None or not _PROC.is_dir():
        return _pid_missing(owner.pid)
    boot, namespace, _ = owner.started.split(":", 2)
    if namespace != _pid_namespace():
        return False
    if boot != _boot_id():
        return True
    fields = _stat_fields(owner.pid)
    if fields is None or fields[0] in _DEAD_STATES:
        return True
    return _started_from(fields) != owner.started


def _started(pid: int) -> str | None:
    fields = _stat_fields(pid)
    return _started_from(fields) if fields is not None else None


def _started_from(fields: list[str]) -> str:
    return f"{_boot_id()}:{_pid_namespace()}:{fields[_START_FIELD]}"


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` from the state on (the command name before them
    may hold spaces and parentheses), or None when there is no such process."""
    try:
        text = (_PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields if len(fields) > _START_FIELD else None


@functools.cache
def _boot_id() -> str:
    try:
        return (_PROC / "sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "-"


@functools.cache
def _pid_namespace() -> str:
    """The inode of this process's pid namespace (``pid:[4026531836]`` → ``4026531836``)."""
    try:
        link = os.readlink(_PROC / "self/ns/pid")
    except OSError:
        return "-"
    return link.partition("[")[2].rstrip("]") or "-"


def _pid_missing(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # it exists, owned by someone else
    return False


__all__ = ["ProcessOwner", "author", "current_owner", "is_gone"]
