"""Tests that need the bubblewrap sandbox (§6.6): they skip, saying why, only where it cannot
be had — not root, so ``tools/system-deps.sh`` (run by ``make test``) could not install
it. As root (CI) bubblewrap is installed and must work: there a missing sandbox fails."""

from __future__ import annotations

import os

import pytest

from harness.sandbox import sandbox_available, sandbox_status


def require_sandbox(*, network: bool = True) -> None:
    if sandbox_available(network=network):
        return
    status = sandbox_status(network=network)
    if os.geteuid() == 0:
        pytest.fail(
            f"the sandbox tests must run as root (make test installs bubblewrap): {status}",
            pytrace=False,
        )
    pytest.skip(f"{status} (not root: run `sudo apt-get install bubblewrap`)")
