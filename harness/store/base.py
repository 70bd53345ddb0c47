"""The SQLite connection the store's parts share: opening it (private files, WAL, busy
timeout, foreign keys, migrations), transactions and reads under one lock, the time stamps
it writes, and the default path."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import platformdirs

from harness.errors import StoreError
from harness.store.permissions import prepare, secure, side_files
from harness.store.schema import migrate

BUSY_TIMEOUT_MS = 5_000
IN_MEMORY = ":memory:"


def default_store_path() -> Path:
    """``$HARNESS_STORE``, else ``<user data dir>/harness/harness.db``."""
    env = os.environ.get("HARNESS_STORE")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("harness", appauthor=False)) / "harness.db"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Database:
    """Owns one connection. Safe to share between threads: every use holds ``lock``."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.lock = threading.RLock()
        try:
            on_disk = str(path) != IN_MEMORY
            if on_disk:
                prepare(self.path)
            self.conn = sqlite3.connect(
                str(path),
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,
            )
            self.conn.row_factory = sqlite3.Row
            self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = ON")
            with self.lock:
                self.version = migrate(self.conn)
            if on_disk:
                secure(side_files(self.path))  # the -wal and -shm SQLite has made by now
        except (sqlite3.Error, OSError, RuntimeError) as exc:
            raise StoreError(f"cannot open the store at {path}: {exc}") from exc

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it lands or none of it."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def rows(self, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
        with self.lock:
            return list(self.conn.execute(sql, params).fetchall())

    def row(self, sql: str, params: tuple[object, ...] = ()) -> sqlite3.Row | None:
        with self.lock:
            found: sqlite3.Row | None = self.conn.execute(sql, params).fetchone()
            return found

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: it moves when another connection commits."""
        with self.lock:
            return int(self.conn.execute("PRAGMA data_version").fetchone()[0])


__all__ = ["BUSY_TIMEOUT_MS", "Database", "default_store_path", "now_iso"]
