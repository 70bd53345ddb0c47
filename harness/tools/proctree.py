"""The processes a command started, found and killed (§6.6): its process group and session,
their descendants, and every process that carries the command's marker in its environment —
which catches what called ``setsid`` or daemonised (double fork), since a child inherits its
parent's environment even after it has left the session and been re-parented to init.

Killing is repeated until a scan finds nothing alive (a process forking while it is being
killed is caught by the next round). What still lives after the rounds is reported by PID:
the result of an ``exec`` says truthfully what could not be killed. In the bubblewrap
sandbox everything also dies with the sandbox's PID namespace; this scan is what makes the
promise hold without one. Its known limit: outside the sandbox, a process that both clears
its environment and leaves the session after its parent died cannot be told apart from any
other process, and escapes the scan.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from dataclasses import dataclass, field

MARKER_VAR = "HARNESS_EXEC_ID"
_ROUNDS = 20
_SETTLE_S = 0.05


def new_marker() -> str:
    return secrets.token_hex(8)


@dataclass
class KillReport:
    """What a kill did: PIDs killed (apart from the command itself) and PIDs that survived."""

    killed: set[int] = field(default_factory=set)
    survivors: set[int] = field(default_factory=set)

    def describe(self) -> str:
        """``3 processes it started were killed`` / ``… could not be killed (PIDs …)``."""
        parts = []
        if self.killed:
            n = len(self.killed)
            parts.append(f"{n} process{'es' if n != 1 else ''} it started {_were(n)} killed")
        if self.survivors:
            n = len(self.survivors)
            pids = ", ".join(str(p) for p in sorted(self.survivors)[:10])
            parts.append(f"{n} process{'es' if n != 1 else ''} could not be killed (PID {pids})")
        return "; ".join(parts)


def _were(n: int) -> str:
    return "was" if n == 1 else "were"


@dataclass(frozen=True)
class _Proc:
    """What ``/proc/PID/stat`` says of a process that the kill needs."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str


def _scan() -> dict[int, _Proc]:
    procs: dict[int, _Proc] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                raw = f.read().decode("ascii", errors="replace")
        except OSError:
            continue
        fields = raw.rsplit(")", 1)[-1].split()
        if len(fields) < 5:
            continue
        pid = int(entry)
        procs[pid] = _Proc(pid, int(fields[1]), int(fields[2]), int(fields[3]), fields[0])
    return procs


def _has_marker(pid: int, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return marker in f.read().split(b"\0")
    except OSError:
        return False


def members(leader: int, marker: str) -> set[int]:
    """Live (non-zombie) processes belonging to the command started as ``leader``."""
    procs = _scan()
    me = os.getpid()
    tagged = f"{MARKER_VAR}={marker}".encode()
    found = {
        p.pid
        for p in procs.values()
        if p.state != "Z"
        and p.pid != me
        and (p.pid == leader or leader in (p.pgid, p.sid) or _has_marker(p.pid, tagged))
    }
    # Descendants of anything found (a child that cleared its environment still has a parent).
    children: dict[int, list[int]] = {}
    for p in procs.values():
        children.setdefault(p.ppid, []).append(p.pid)
    pending = list(found)
    while pending:
        for child in children.get(pending.pop(), []):
            if child not in found and procs[child].state != "Z" and child != me:
                found.add(child)
                pending.append(child)
    return found


def kill_all(leader: int, marker: str) -> KillReport:
    """SIGKILL every member, round after round, until none is alive (blocking; call it in
    a thread). ``leader`` itself is not counted in the report."""
    report = KillReport()
    for _ in range(_ROUNDS):
        alive = members(leader, marker)
        if not alive:
            report.survivors = set()
            return report
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            if pid != leader:
                report.killed.add(pid)
        time.sleep(_SETTLE_S)
    report.survivors = members(leader, marker)
    report.killed -= report.survivors
    return report


__all__ = ["MARKER_VAR", "KillReport", "kill_all", "members", "new_marker"]
