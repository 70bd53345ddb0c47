"""A workspace MCP server's command line inside the exec sandbox (§15, §6.6): bubblewrap
with the workspace writable, the rest read-only, its own PID namespace, dying with the
harness (``--die-with-parent``), network as ``[exec] network``. The SDK starts the
process itself and cannot pass it a file descriptor, so with ``network = false`` the
server gets ``--unshare-net`` without the Unix-socket filter."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harness.sandbox import bwrap_argv, probe
from harness.sandbox.paths import tool_dirs


class NoSandbox(Exception):
    """A workspace server cannot run: there is no sandbox here."""


def boxed(argv: list[str], root: Path, network: bool, env: Mapping[str, str]) -> list[str]:
    found = probe(network=network)
    if not found.available or found.executable is None:
        raise NoSandbox(f"a workspace server runs only in the sandbox, and {found.reason}")
    return bwrap_argv(
        argv,
        root=root,
        network=network,
        executable=found.executable,
        visible=tool_dirs(argv[0], env.get("PATH")),
    )


__all__ = ["NoSandbox", "boxed"]
