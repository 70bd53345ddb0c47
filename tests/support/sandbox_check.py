"""Tests that need the bubblewrap sandbox (§6.6): they skip, saying why, only where it cannot
be had — not root, so ``tools/system-deps.sh`` (run by ``make test``) could not install
it. As root (CI) bubblewrap is installed and must work: there a missing sandbox fails.

Also what the sandbox tests share: a place outside the workspace and outside ``/tmp``
(``outside_dir``: the sandbox's ``/tmp`` is private, so a write there "succeeds" unseen), a
normal user (``normal_user``: a throwaway one when the tests run as root), and the output of
one stream of an ``exec`` result (``stream``)."""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

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


@contextmanager
def outside_dir(prefix: str = "harness-sandbox-") -> Iterator[Path]:
    """A fresh directory under ``/var/tmp``, removed afterwards."""
    path = Path(tempfile.mkdtemp(dir="/var/tmp", prefix=prefix))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@dataclass(frozen=True)
class User:
    name: str
    uid: int
    gid: int

    def argv(self, *command: str) -> list[str]:
        """``command`` run as this user (``setpriv`` keeps the environment as it is)."""
        if self.uid == os.geteuid():
            return list(command)
        ids = [f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups"]
        return ["setpriv", *ids, "--", *command]


@contextmanager
def normal_user() -> Iterator[User]:
    """A normal user: as root a new one (``useradd``), deleted afterwards; otherwise the
    user running the tests."""
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.geteuid())
        yield User(me.pw_name, me.pw_uid, me.pw_gid)
        return
    if shutil.which("useradd") is None or shutil.which("setpriv") is None:
        pytest.fail("useradd and setpriv (Debian: passwd, util-linux) are needed", pytrace=False)
    name = f"hx-{secrets.token_hex(4)}"
    subprocess.run(
        ["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
        check=True,
        capture_output=True,
    )
    try:
        entry = pwd.getpwnam(name)
        yield User(name, entry.pw_uid, entry.pw_gid)
    finally:
        subprocess.run(["userdel", name], check=False, capture_output=True)


def stream(result_text: str, name: str = "stdout") -> str:
    """One stream of an ``exec`` result (``--- stdout ---`` … up to the next header)."""
    after = result_text.split(f"--- {name} ---\n", 1)[1]
    return after.split("\n--- stderr ---", 1)[0]
