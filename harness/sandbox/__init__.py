"""The exec sandbox (§6.6): bubblewrap (``bwrap``, Debian's ``bubblewrap``) when it is
installed and can run here.

Inside it a command sees the whole file system read-only, the workspace read-write, a
private ``/tmp``, fresh ``/dev`` and ``/proc``, and its own PID namespace — so ``/proc``
shows nothing of the harness (``/proc/$PPID`` is bwrap's init, started with the command's
scrubbed environment), and when the sandbox's init dies every process in it dies too,
whatever session it started. ``--die-with-parent`` ties the sandbox to the harness;
``--new-session`` keeps the command off the harness's terminal. What the agent may never
write although it lies in the workspace — its ``.harness/``, the harness's own files when
the workspace holds them (``Workspace.protected``) — is bound read-only over the workspace.

- **No capabilities** (``--cap-drop ALL``). Run as root (containers, CI, devcontainers)
  bwrap keeps every capability by default: a command could remount ``/`` read-write and
  write anywhere. Dropped, a root command is refused like a normal user's; bwrap also sets
  ``no_new_privs``, so no program it runs (setuid or root's own) gets them back. As a
  normal user bwrap drops them anyway; the flag changes nothing there.
- **Network** shared unless ``[exec] network = false``: then ``--unshare-net``, and a
  seccomp filter refusing Unix sockets (``harness.sandbox.seccomp``) so a command reaches
  no host daemon either.
- **Tools**: the directories of the command's ``PATH`` and interpreter that the private
  ``/tmp`` would hide are bound back read-only (``harness.sandbox.paths``).

Whether bwrap works is probed with the very flags a command gets (user namespaces may be
disabled in a container, and then bwrap fails at run time). A working sandbox is
remembered for the process; a failure (bwrap's own words as the reason) only until the next
run starts: ``sandbox_available``, asked at the start of each run, probes again, so one
slow or failed probe never turns the sandbox off for a server's life. Within a run the
failure is kept, so a run pays for at most one probe (at most ``PROBE_TIMEOUT_S``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.sandbox.paths import tool_dirs
from harness.sandbox.seccomp import SeccompUnavailable, filter_fd, unix_socket_filter
from harness.types import ExecConfig, SandboxMode

PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class SandboxProbe:
    available: bool
    reason: str  # why not, or what is used
    executable: str | None = None
    # network = false only: why the host's Unix sockets stay reachable (no libseccomp)
    sockets_open: str | None = None


@dataclass
class SandboxedCommand:
    """The command line to start, and the file descriptors it must inherit (the seccomp
    filter's). ``close`` them once the command has started: it keeps its own copies."""

    argv: list[str]
    pass_fds: tuple[int, ...] = ()

    def close(self) -> None:
        fds, self.pass_fds = self.pass_fds, ()
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


_lock = threading.Lock()
_probes: dict[bool, SandboxProbe] = {}


def bwrap_argv(
    argv: list[str],
    *,
    root: Path,
    network: bool = True,
    executable: str = "bwrap",
    read_only: Sequence[Path] = (),
    visible: Sequence[Path] = (),
    seccomp_fd: int | None = None,
) -> list[str]:
    """The command line running ``argv`` in the sandbox, in ``root``. Later mounts win:
    ``visible`` (tool directories under ``/tmp``) and then the workspace are bound after
    the private ``/tmp`` (a workspace under ``/tmp`` stays writable), and ``read_only``
    (paths in the workspace) after the workspace."""
    ws = str(root)
    args = [
        executable,
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        *(arg for path in visible for arg in ("--ro-bind-try", str(path), str(path))),
        "--bind", ws, ws,
        *(arg for path in read_only for arg in ("--ro-bind", str(path), str(path))),
        "--chdir", ws,
        "--unshare-pid",
        "--die-with-parent",
        "--new-session",
        "--cap-drop", "ALL",
    ]  # fmt: skip
    if not network:
        args.append("--unshare-net")
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return [*args, "--", *argv]


def sandboxed(
    argv: list[str],
    found: SandboxProbe,
    *,
    root: Path,
    network: bool,
    read_only: Sequence[Path] = (),
    search_path: str | None = None,
) -> SandboxedCommand:
    """``argv`` wrapped in the sandbox ``found`` (available), its tools visible as found on
    ``search_path`` (the command's ``PATH``)."""
    if not found.available or found.executable is None:
        raise ValueError(f"no sandbox to run in: {found.reason}")
    fd = filter_fd(unix_socket_filter()) if not network and found.sockets_open is None else None
    boxed = bwrap_argv(
        argv,
        root=root,
        network=network,
        executable=found.executable,
        read_only=read_only,
        visible=tool_dirs(argv[0], search_path),
        seccomp_fd=fd,
    )
    return SandboxedCommand(boxed, () if fd is None else (fd,))


def probe(*, network: bool = True) -> SandboxProbe:
    """Whether bwrap can run a command here with these flags: what was last found, else
    found now."""
    with _lock:
        cached = _probes.get(network)
        if cached is None:
            cached = _probes[network] = _probe(network)
        return cached


def sandbox_available(*, network: bool = True) -> bool:
    """Whether commands can run sandboxed — asked at the start of every run: a remembered
    failure is probed again (a working sandbox is not)."""
    with _lock:
        cached = _probes.get(network)
        if cached is not None and not cached.available:
            del _probes[network]
    return probe(network=network).available


def sandbox_status(*, network: bool = True) -> str:
    """A line for the user: ``commands run in bubblewrap (/usr/bin/bwrap)`` or why not."""
    found = probe(network=network)
    if found.available:
        return f"commands run sandboxed in {found.reason}"
    return f"commands run without a sandbox: {found.reason}"


def run_warnings(config: ExecConfig) -> tuple[str, ...]:
    """What the user is told once per run about commands and the sandbox (§6.6)."""
    if config.sandbox is SandboxMode.OFF:
        return ('commands run without a sandbox: `[exec] sandbox = "off"` in your policy',)
    if sandbox_available(network=config.network):
        return ()
    status = sandbox_status(network=config.network)
    if config.sandbox is SandboxMode.REQUIRED:
        return (f'{status}; `[exec] sandbox = "required"`, so every command is refused',)
    return (status,)


def forget_probes() -> None:
    """Probe again next time (after installing bubblewrap, and in tests)."""
    with _lock:
        _probes.clear()


def _probe(network: bool) -> SandboxProbe:
    executable = shutil.which("bwrap")
    if executable is None:
        return SandboxProbe(False, "bubblewrap (bwrap) is not installed")
    sockets_open = None
    if not network:
        try:
            unix_socket_filter()
        except SeccompUnavailable as exc:
            sockets_open = str(exc)
    usable = SandboxProbe(True, f"bubblewrap ({executable})", executable, sockets_open)
    scratch = Path(tempfile.gettempdir())
    command = sandboxed(["true"], usable, root=scratch, network=network)
    try:
        done = subprocess.run(
            command.argv,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            pass_fds=command.pass_fds,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxProbe(False, f"bwrap could not be started ({exc})", executable)
    finally:
        command.close()
    if done.returncode != 0:
        said = " ".join(done.stderr.split())[:300] or f"exit status {done.returncode}"
        return SandboxProbe(False, f"bwrap cannot create its sandbox here: {said}", executable)
    return usable


__all__ = [
    "PROBE_TIMEOUT_S",
    "SandboxProbe",
    "SandboxedCommand",
    "bwrap_argv",
    "forget_probes",
    "probe",
    "run_warnings",
    "sandbox_available",
    "sandbox_status",
    "sandboxed",
]
