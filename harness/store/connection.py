"""What the store's SQL modules see of a database, whichever engine is behind it: a
connection that ``execute``s SQL with ``?`` placeholders and returns rows readable by
position and by column name (``sqlite3.Connection`` is one; ``harness.store.postgres``
adapts psycopg to the same shape), and the ``Database`` that owns it (transactions, reads,
the change counter the recall index follows).

``DB_ERRORS`` are the exceptions either engine raises; ``is_url`` tells a PostgreSQL URL
from a SQLite path; ``shown`` is a store's name for messages, a URL without its password.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

URL_SCHEMES = ("postgresql://", "postgres://")

_PASSWORD = re.compile(r"(?P<head>://[^/@:]*):[^/@]*@")
_PASSWORD_PARAM = re.compile(r"(?P<head>[?&]password=)[^&]*", re.IGNORECASE)


def is_url(location: Path | str) -> bool:
    """Whether a store location is a PostgreSQL URL (else it is a SQLite file path)."""
    return isinstance(location, str) and location.lower().startswith(URL_SCHEMES)


def shown(location: Path | str) -> str:
    """The location as messages, logs and ``harness.status`` may show it: a URL's password
    (in the user part or a ``password=`` parameter) replaced by ``***``."""
    text = str(location)
    if not is_url(text):
        return text
    text = _PASSWORD.sub(r"\g<head>:***@", text)
    return _PASSWORD_PARAM.sub(r"\g<head>***", text)


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def close(self) -> None: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Any, /) -> Cursor: ...


class Database(Protocol):
    """One connection to the store, safe to share between threads under ``lock``."""

    location: Path | str
    version: int
    lock: threading.RLock

    @property
    def conn(self) -> Connection: ...

    def close(self) -> None: ...

    def transaction(self) -> AbstractContextManager[Connection]: ...

    def reading(self) -> AbstractContextManager[Connection]: ...

    def data_version(self) -> int: ...


def db_errors() -> tuple[type[Exception], ...]:
    """The exceptions a store operation may raise from its engine."""
    import psycopg

    return (sqlite3.Error, psycopg.Error)


__all__ = ["URL_SCHEMES", "Connection", "Cursor", "Database", "db_errors", "is_url", "shown"]
