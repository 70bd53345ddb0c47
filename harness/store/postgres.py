"""The store on PostgreSQL (§12), through psycopg 3: the same schema, SQL and transactions
as the SQLite store, seen through the same ``Connection`` shape.

- **Opening** a URL whose database does not exist yet creates it (many processes may race
  to: the losers use the winner's). The migrations (``harness.store.schema``, translated by
  ``harness.store.dialect``) run each in its own transaction under
  ``pg_advisory_xact_lock``, re-reading the version inside it, so any number of processes
  may open a new or older store at once. The version lives in ``harness_schema`` (SQLite
  keeps it in ``PRAGMA user_version``).
- **Writes**: each transaction begins by counting itself in ``harness_schema.changes``.
  That row lock makes write transactions take turns, as SQLite's ``BEGIN IMMEDIATE`` does,
  so statements that read then write (the next ``seq``, a note's key) see a settled store;
  and the count is what ``data_version`` reports, moving only when another connection
  committed (SQLite's ``PRAGMA data_version``), for the recall index to follow.
- **Durability** as the SQLite store's (WAL, ``synchronous = NORMAL``): the session sets
  ``synchronous_commit = off``, so a commit does not wait for the server's disk. A step
  is still whole or absent; what a *server* crash may lose is the last fraction of a
  second of commits, never a harness process's (its commits are in the server). A URL
  whose ``options`` set ``synchronous_commit`` keeps that setting.
- **Text**: PostgreSQL cannot hold a NUL character; one is stored as the text ``\\x00``,
  as the store shows any byte it cannot keep (§5).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from psycopg import errors, sql
from psycopg.adapt import Loader
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from harness.errors import StoreError
from harness.store.base import BUSY_TIMEOUT_MS
from harness.store.connection import Cursor, shown
from harness.store.dialect import ddl, statement
from harness.store.readers import ThreadReaders
from harness.store.schema import MIGRATIONS, apply_migration

MIGRATION_LOCK = 0x68_61_72_6E  # "harn": the advisory lock migrations take
LOCK_TIMEOUT_MS = 6 * BUSY_TIMEOUT_MS  # a writer waits this long for the others' turns
_CLOCK = """
CREATE TABLE IF NOT EXISTS harness_schema (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL,
    changes BIGINT NOT NULL
)"""


class PgRow:
    """A row readable like ``sqlite3.Row``: by position, by column name, unpacked."""

    __slots__ = ("_names", "_values")

    def __init__(self, values: Sequence[Any], names: dict[str, int]) -> None:
        self._values = values
        self._names = names

    def __getitem__(self, key: int | str) -> Any:
        return self._values[self._names[key] if isinstance(key, str) else key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        return list(self._names)


def _rows(cursor: psycopg.Cursor[Any]) -> Any:
    names = {column.name: i for i, column in enumerate(cursor.description or ())}
    return lambda values: PgRow(values, names)


class _Number(Loader):
    """``sum()`` of integers is ``numeric`` in PostgreSQL: read it back as an ``int``."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode()
        return float(text) if "." in text else int(text)


def _value(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)  # the schema's flags are integers, as in SQLite
    if isinstance(value, str) and "\x00" in value:
        return value.replace("\x00", "\\x00")
    return value


def _params(params: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(_value(v) for v in params)


class PgConnection:
    """psycopg behind the ``Connection`` shape: ``?`` placeholders, rows like SQLite's."""

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw

    def execute(self, sql_text: str, parameters: Sequence[Any] = (), /) -> Cursor:
        cursor = self.raw.cursor()
        cursor.execute(statement(sql_text), _params(parameters))
        return cursor

    def executemany(self, sql_text: str, parameters: Any, /) -> Cursor:
        cursor = self.raw.cursor()
        rows = [_params(p) for p in parameters]
        if rows:
            cursor.executemany(statement(sql_text), rows)
        return cursor


def _connect(url: str) -> psycopg.Connection[Any]:
    """A connection to ``url``, creating its database when there is none yet."""
    options = {"autocommit": True, "row_factory": _rows, "connect_timeout": 10}
    try:
        raw = psycopg.connect(url, **options)  # type: ignore[arg-type]
    except psycopg.OperationalError as exc:
        if "does not exist" not in str(exc):
            raise
        _create_database(url)
        raw = psycopg.connect(url, **options)  # type: ignore[arg-type]
    raw.adapters.register_loader("numeric", _Number)
    raw.execute(sql.SQL("SET lock_timeout = {}").format(sql.Literal(f"{LOCK_TIMEOUT_MS}ms")))
    if "synchronous_commit" not in str(conninfo_to_dict(url).get("options") or ""):
        raw.execute("SET synchronous_commit = off")
    return raw


def _create_database(url: str) -> None:
    name = conninfo_to_dict(url).get("dbname")
    if not name:
        raise StoreError(f"the store URL {shown(url)} names no database")
    admin = psycopg.connect(make_conninfo(url, dbname="postgres"), autocommit=True)
    with admin, contextlib.suppress(errors.DuplicateDatabase, errors.UniqueViolation):
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(str(name))))


class PgDatabase:
    """Owns one connection to a PostgreSQL store. Safe to share between threads: every use
    holds ``lock``."""

    def __init__(self, url: str) -> None:
        self.location: Path | str = url
        self.lock = threading.RLock()
        self._seen = 0  # harness_schema.changes as last read
        self._epoch = 0  # what data_version reports
        try:
            self._raw = _connect(url)
        except psycopg.Error as exc:
            raise StoreError(f"cannot open the store at {shown(url)}: {_said(exc)}") from exc
        self.conn = PgConnection(self._raw)
        self._readers: ThreadReaders[PgConnection] = ThreadReaders(self._open_reader)
        try:
            with self.lock:
                self.version = self._migrate()
                self._seen = self._changes()
        except BaseException as exc:
            self._raw.close()
            if isinstance(exc, psycopg.Error | RuntimeError):
                raise StoreError(f"cannot open the store at {shown(url)}: {_said(exc)}") from exc
            raise

    def close(self) -> None:
        with self.lock:
            self._readers.close_all()
            self._raw.close()

    def _open_reader(self) -> tuple[PgConnection, Any]:
        raw = _connect(str(self.location))
        return PgConnection(raw), raw.close

    def _migrate(self) -> int:
        """Apply the migrations not yet applied, each in its own transaction under the
        advisory lock, the version re-read inside it; return the version."""
        while True:
            with self._begun():
                self._raw.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                self._raw.execute(_CLOCK)
                self._raw.execute(
                    "INSERT INTO harness_schema VALUES (1, 0, 0) ON CONFLICT (id) DO NOTHING"
                )
                current = int(self.conn.execute("SELECT version FROM harness_schema").fetchone()[0])
                if current > len(MIGRATIONS):
                    raise RuntimeError(
                        f"store schema version {current} is newer than this harness"
                        f" ({len(MIGRATIONS)})"
                    )
                if current == len(MIGRATIONS):
                    return current
                apply_migration(self.conn, MIGRATIONS[current], ddl)
                self._raw.execute("UPDATE harness_schema SET version = %s", (current + 1,))

    @contextmanager
    def _begun(self) -> Iterator[None]:
        self._raw.execute("BEGIN")
        try:
            yield
        except BaseException:
            with contextlib.suppress(psycopg.Error):
                self._raw.execute("ROLLBACK")
            raise
        self._raw.execute("COMMIT")

    @contextmanager
    def transaction(self) -> Iterator[PgConnection]:
        """One write transaction: all of it lands or none of it; writers take turns."""
        with self.lock, self.busy():
            try:
                with self._raw.pipeline():  # statements go out without waiting for each
                    self._raw.execute("BEGIN")
                    changed = self.conn.execute(
                        "UPDATE harness_schema SET changes = changes + 1 RETURNING changes"
                    ).fetchone()[0]
                    self._saw(int(changed), own=True)
                    self._readers.writing(+1)
                    try:
                        yield self.conn
                    finally:
                        self._readers.writing(-1)
                    self._raw.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(psycopg.Error):
                    self._raw.execute("ROLLBACK")
                raise

    @contextmanager
    def reading(self) -> Iterator[PgConnection]:
        with self.lock, self.busy():
            yield self.conn

    @contextmanager
    def reader(self) -> Iterator[PgConnection]:
        """A connection for one read that waits for no other read or write of this process:
        this thread's own (autocommit: each statement sees the last commit). Inside a write
        transaction of this thread, the writer's under the lock."""
        conn = self._readers.get()
        if conn is None:
            with self.reading() as main:
                yield main
            return
        with self.busy():
            yield conn

    @contextmanager
    def busy(self) -> Iterator[None]:
        """Waiting past the lock timeout for another process's turn is a one-line
        ``StoreError``, as a busy SQLite store is."""
        try:
            yield
        except errors.LockNotAvailable as exc:
            raise StoreError(
                f"the store at {shown(self.location)} is locked by another process (still"
                f" busy after {LOCK_TIMEOUT_MS / 1000:g} s); try again when it is done"
            ) from exc

    def data_version(self) -> int:
        """Moves when another connection has committed a write since we last looked."""
        with self.lock:
            self._saw(self._changes(), own=False)
            return self._epoch

    def _changes(self) -> int:
        return int(self.conn.execute("SELECT changes FROM harness_schema").fetchone()[0])

    def _saw(self, changes: int, *, own: bool) -> None:
        if changes != self._seen + (1 if own else 0):
            self._epoch += 1
        self._seen = changes


def _said(exc: BaseException) -> str:
    """The first line of an engine's message (never the URL, which may hold a password)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


__all__ = ["PgConnection", "PgDatabase", "PgRow"]
