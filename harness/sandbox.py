"""The exec sandbox (§6.6): bubblewrap (``bwrap``, Debian's ``bubblewrap``) when it is
installed and can run here.

Inside it a command sees the whole file system read-only, the workspace read-write, a
private ``/tmp``, fresh ``/dev`` and ``/proc``, and its own PID namespace — so ``/proc``
shows nothing of the harness (``/proc/$PPID`` is bwrap's init, started with the command's
scrubbed environment), and when the sandbox's init dies every process in it dies too,
whatever session it started. ``--die-with-parent`` ties the sandbox to the harness;
``--new-session`` keeps the command off the harness's terminal. The network is shared
unless ``[exec] network = false`` (then ``--unshare-net``). What the agent may never
write although it lies in the workspace — its ``.harness/``, the harness's own files when
the workspace holds them (``Workspace.protected``) — is bound read-only over the workspace.

Whether bwrap works is probed once per process with the very flags a command gets (user
namespaces may be disabled in a container, and then bwrap fails at run time): a failing
probe makes the sandbox unavailable, with bwrap's own words as the reason.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class SandboxProbe:
    available: bool
    reason: str  # why not, or what is used
    executable: str | None = None


_lock = threading.Lock()
_probes: dict[bool, SandboxProbe] = {}


def bwrap_argv(
    argv: list[str],
    *,
    root: Path,
    network: bool = True,
    executable: str = "bwrap",
    read_only: Sequence[Path] = (),
) -> list[str]:
    """The command line running ``argv`` in the sandbox, in ``root``. Later mounts win, so
    the workspace is bound after the private ``/tmp`` (a workspace under ``/tmp`` stays),
    and ``read_only`` (paths in the workspace) after the workspace."""
    ws = str(root)
    args = [
        executable,
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--bind", ws, ws,
        *(arg for path in read_only for arg in ("--ro-bind", str(path), str(path))),
        "--chdir", ws,
        "--unshare-pid",
        "--die-with-parent",
        "--new-session",
    ]  # fmt: skip
    if not network:
        args.append("--unshare-net")
    return [*args, "--", *argv]


def probe(*, network: bool = True) -> SandboxProbe:
    """Whether bwrap can run a command here with these flags (cached per process)."""
    with _lock:
        cached = _probes.get(network)
        if cached is not None:
            return cached
        found = _probe(network)
        _probes[network] = found
        return found


def _probe(network: bool) -> SandboxProbe:
    executable = shutil.which("bwrap")
    if executable is None:
        return SandboxProbe(False, "bubblewrap (bwrap) is not installed")
    scratch = Path(tempfile.gettempdir())
    argv = bwrap_argv(["true"], root=scratch, network=network, executable=executable)
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxProbe(False, f"bwrap could not be started ({exc})", executable)
    if done.returncode != 0:
        said = " ".join(done.stderr.split())[:300] or f"exit status {done.returncode}"
        return SandboxProbe(False, f"bwrap cannot create its sandbox here: {said}", executable)
    return SandboxProbe(True, f"bubblewrap ({executable})", executable)


def sandbox_available(*, network: bool = True) -> bool:
    return probe(network=network).available


def sandbox_status(*, network: bool = True) -> str:
    """A line for the user: ``commands run in bubblewrap (/usr/bin/bwrap)`` or why not."""
    found = probe(network=network)
    if found.available:
        return f"commands run sandboxed in {found.reason}"
    return f"commands run without a sandbox: {found.reason}"


def forget_probes() -> None:
    """Probe again next time (after installing bubblewrap, and in tests)."""
    with _lock:
        _probes.clear()


__all__ = [
    "SandboxProbe",
    "bwrap_argv",
    "forget_probes",
    "probe",
    "sandbox_available",
    "sandbox_status",
]
