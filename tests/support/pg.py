"""A throwaway PostgreSQL cluster for the tests (§12): ``initdb`` + ``pg_ctl`` from Debian's
``postgresql`` package, listening only on a Unix socket in a temporary directory.

``initdb`` and ``pg_ctl`` refuse to run as root, so as root the cluster belongs to the
``postgres`` system user (the package creates it) and its directory is handed to that user.
One cluster serves a whole test session; each test gets a fresh database cloned from a
template (``Cluster.database``), which is fast and leaves no state between tests, and drops
it after (``Cluster.drop``).

The tests' cluster (not ``durable``) lives in memory (``/dev/shm``) and clones by copying
files (``STRATEGY FILE_COPY``, PostgreSQL 15+): on this 2-core VM, 100 clones and the
teardown took 109 s on disk with the default WAL-logged clone, 10 s so (docs/MEASUREMENTS.md).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

SERVER_USER = "postgres"
EMPTY = "template0"
IN_MEMORY = Path("/dev/shm")


def binaries() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl``: Debian's newest
    ``/usr/lib/postgresql/<v>/bin``, else wherever ``initdb`` is on PATH; None when absent."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).resolve().parent if on_path else None


def _version(initdb: str) -> int:
    digits = Path(initdb).parent.parent.name
    return int(digits) if digits.isdigit() else 0


def unavailable() -> str | None:
    """Why no cluster can be started here, or None when one can."""
    if binaries() is None:
        return "PostgreSQL is not installed (tools/system-deps.sh installs Debian's postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SERVER_USER)
        except KeyError:
            return f"running as root and there is no '{SERVER_USER}' user to own the cluster"
    return None


@dataclass
class Cluster:
    """A running cluster: ``url(db)`` names a database on it."""

    root: Path
    bin: Path
    file_copy: bool = False  # clone by copying the template's files (PostgreSQL 15+)
    _count: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _templates: set[str] = field(default_factory=set)

    @property
    def socket_dir(self) -> Path:
        return self.root / "socket"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SERVER_USER}@/{database}?host={self.socket_dir}"

    def admin(self, sql: str) -> None:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]  # test-only DDL with trusted names

    def fresh_name(self, prefix: str = "t") -> str:
        with self._lock:
            self._count += 1
            return f"{prefix}_{os.getpid()}_{self._count}"

    def database(self, template: str = EMPTY) -> str:
        """A new database cloned from ``template`` (default: empty); its URL."""
        name = self.fresh_name()
        strategy = " STRATEGY FILE_COPY" if self.file_copy else ""
        self.admin(f'CREATE DATABASE "{name}" TEMPLATE "{template}"{strategy}')
        return self.url(name)

    def drop(self, url: str) -> None:
        """Drop the database of ``url`` (a test's), closing what still holds it open."""
        name = url.rsplit("/", 1)[1].split("?", 1)[0]
        self.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def template(self, name: str, build: Callable[[str], None]) -> str:
        """A template database ``name`` made once per session by ``build(url)``."""
        if name not in self._templates:
            self.admin(f'CREATE DATABASE "{name}" TEMPLATE {EMPTY}')
            build(self.url(name))
            self._templates.add(name)
        return name

    def stop(self) -> None:
        _as_server_user(
            [
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.root / "data"),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
            check=False,
        )
        shutil.rmtree(self.root, ignore_errors=True)


def start_cluster(*, durable: bool = False) -> Cluster:
    """initdb + pg_ctl start as a non-root user, socket only, in a new temporary directory.
    Not ``durable`` (the tests): no fsync, so a fresh database per test is cheap; ``durable``
    (the benchmarks): PostgreSQL's defaults, as a team's server runs."""
    bin_dir = binaries()
    assert bin_dir is not None
    in_memory = not durable and IN_MEMORY.is_dir() and os.access(IN_MEMORY, os.W_OK)
    root = Path(tempfile.mkdtemp(prefix="harness-pg-", dir=IN_MEMORY if in_memory else None))
    (root / "socket").mkdir()
    if os.geteuid() == 0:
        user = pwd.getpwnam(SERVER_USER)
        for path in (root, root / "socket"):
            os.chown(path, user.pw_uid, user.pw_gid)
    data = root / "data"
    _as_server_user(
        [
            str(bin_dir / "initdb"),
            "-D",
            str(data),
            "-U",
            SERVER_USER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        ],
    )
    options = (
        f"-k {root / 'socket'} -c listen_addresses='' -c max_connections=200 -c shared_buffers=32MB"
    )
    if not durable:
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    _as_server_user(
        [
            str(bin_dir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(root / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        ],
    )
    file_copy = not durable and _version(str(bin_dir / "initdb")) >= 15
    return Cluster(root=root, bin=bin_dir, file_copy=file_copy)


def _as_server_user(argv: list[str], *, check: bool = True) -> None:
    user = SERVER_USER if os.geteuid() == 0 else None
    with (
        contextlib.suppress(subprocess.CalledProcessError)
        if not check
        else contextlib.nullcontext()
    ):
        subprocess.run(
            argv,
            check=True,
            user=user,
            group=user,
            capture_output=True,
            cwd="/",
            env={**os.environ, "LC_ALL": "C.UTF-8"},
        )


__all__ = ["EMPTY", "Cluster", "binaries", "start_cluster", "unavailable"]
