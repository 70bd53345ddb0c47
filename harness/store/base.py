"""The SQLite connection the store's parts share: opening it (private files, WAL, busy
timeout, foreign keys, migrations), transactions and reads under one lock, the time stamps
it writes, and the default path."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import platformdirs

from harness.errors import StoreError
from harness.store.connection import is_url
from harness.store.permissions import prepare, secure, side_files
from harness.store.readers import ThreadReaders
from harness.store.schema import migrate

BUSY_TIMEOUT_MS = 5_000
IN_MEMORY = ":memory:"


def data_dir() -> Path:
    """``<user data dir>/harness``: the default store's folder, and where files that belong
    beside a store go when the store is a PostgreSQL URL."""
    return Path(platformdirs.user_data_dir("harness", appauthor=False))


def store_location(value: Path | str) -> Path | str:
    """A store given by the user: a ``postgresql://`` URL as it is, else a file path."""
    if is_url(value):
        return str(value)
    return Path(value).expanduser()


def default_store_path() -> Path | str:
    """``$HARNESS_STORE`` (a path or a ``postgresql://`` URL), else
    ``<user data dir>/harness/harness.db``."""
    env = os.environ.get("HARNESS_STORE")
    if env:
        return store_location(env)
    return data_dir() / "harness.db"


def local_dir(location: Path | str) -> Path:
    """The folder for files kept beside a store: a SQLite file's folder; for a PostgreSQL
    store, the user data dir."""
    return data_dir() if is_url(location) else Path(location).parent


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# SQLite's words when the disk says no: SQLITE_FULL, SQLITE_IOERR.
_WRITE_FAILURES = ("database or disk is full", "disk i/o error")


def write_error(path: Path, exc: sqlite3.OperationalError) -> StoreError | None:
    """A ``StoreError`` naming the store when ``exc`` is a full disk or an I/O error (a run
    ends ``store_error`` with it, never as an internal error); None for anything else."""
    said = str(exc)
    if not any(words in said.lower() for words in _WRITE_FAILURES):
        return None
    return StoreError(f"the store at {path} could not be written: {said}; free some space")


def locked_error(path: Path, exc: sqlite3.OperationalError) -> StoreError | None:
    """The error to report when ``exc`` says another process holds the store locked."""
    said = str(exc).lower()
    if "locked" not in said and "busy" not in said:
        return None
    return StoreError(
        f"the store at {path} is locked by another process (still busy after "
        f"{BUSY_TIMEOUT_MS / 1000:g} s); try again when it is done, or pass --store for another"
    )


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. Many processes opening a new store at once race here, and SQLite does
    not wait on its busy handler for this switch: a lost race is retried (briefly) until
    another process's switch is seen or the busy timeout passes."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if locked_error(Path(), exc) is None or time.monotonic() > deadline:
                raise
        with contextlib.suppress(sqlite3.OperationalError):
            if conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                return
        time.sleep(0.005)


def _read_connection(path: Path) -> sqlite3.Connection:
    """A connection that only reads (``query_only``): WAL lets it read while the writer
    writes and while other readers read."""
    conn = sqlite3.connect(
        str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA query_only = ON")
    return conn


class Database:
    """Owns one connection for writes (and the reads of a write), safe to share between
    threads: every use holds ``lock``. Plain reads (``reader``) get a connection of their
    own thread, so a slow read never holds up another (issue 30: ``harness.status`` waited
    behind a listing of a million runs)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.location: Path | str = self.path
        self.lock = threading.RLock()
        self._on_disk = str(path) != IN_MEMORY
        self._readers: ThreadReaders[sqlite3.Connection] = ThreadReaders(self._open_reader)
        try:
            if self._on_disk:
                prepare(self.path)
            self.conn = sqlite3.connect(
                str(path),
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,
            )
            self.conn.row_factory = sqlite3.Row
            self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            _use_wal(self.conn)
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = ON")
            with self.lock:
                self.version = migrate(self.conn)
            if self._on_disk:
                secure(side_files(self.path))  # the -wal and -shm SQLite has made by now
        except sqlite3.OperationalError as exc:
            raise (
                locked_error(self.path, exc)
                or StoreError(f"cannot open the store at {path}: {exc}")
            ) from exc
        except (sqlite3.Error, OSError, RuntimeError) as exc:
            raise StoreError(f"cannot open the store at {path}: {exc}") from exc

    def close(self) -> None:
        with self.lock:
            self._readers.close_all()
            self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it lands or none of it."""
        with self.lock, self.busy():
            self.conn.execute("BEGIN IMMEDIATE")
            self._readers.writing(+1)
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            finally:
                self._readers.writing(-1)
            try:
                self.conn.execute("COMMIT")
            except sqlite3.Error:
                if self.conn.in_transaction:  # a failed COMMIT (a full disk) leaves it open
                    with contextlib.suppress(sqlite3.Error):
                        self.conn.execute("ROLLBACK")
                raise

    def rows(self, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
        with self.lock, self.busy():
            return list(self.conn.execute(sql, params).fetchall())

    def row(self, sql: str, params: tuple[object, ...] = ()) -> sqlite3.Row | None:
        with self.lock, self.busy():
            found: sqlite3.Row | None = self.conn.execute(sql, params).fetchone()
            return found

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The connection for reads, under the lock; a store locked by another process past
        the busy timeout raises ``StoreError`` (``busy``)."""
        with self.lock, self.busy():
            yield self.conn

    @contextmanager
    def reader(self) -> Iterator[sqlite3.Connection]:
        """A connection for one read that waits for no other read or write of this process:
        this thread's own (WAL readers see the last commit). Inside a write transaction of
        this thread, and for an in-memory store, the writer's connection under the lock."""
        conn = self._readers.get() if self._on_disk else None
        if conn is None:
            with self.reading() as main:
                yield main
            return
        with self.busy():
            yield conn

    def _open_reader(self) -> tuple[sqlite3.Connection, Callable[[], None]]:
        conn = _read_connection(self.path)
        return conn, conn.close

    @contextmanager
    def busy(self) -> Iterator[None]:
        """A store another process holds locked past the busy timeout is a ``StoreError``
        that says so (one line for the operator), not a bare ``sqlite3`` error."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            failed = locked_error(self.path, exc) or write_error(self.path, exc)
            if failed is None:
                raise
            raise failed from exc

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: it moves when another connection commits."""
        with self.lock:
            return int(self.conn.execute("PRAGMA data_version").fetchone()[0])


__all__ = [
    "BUSY_TIMEOUT_MS",
    "Database",
    "data_dir",
    "default_store_path",
    "local_dir",
    "locked_error",
    "now_iso",
    "store_location",
]
