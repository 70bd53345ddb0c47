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
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

URL_SCHEMES = ("postgresql://", "postgres://")

# libpq's keyword form (``host=db password=s3cret``), the value bare or single-quoted
_KEYWORD_PASSWORD = re.compile(
    r"(?P<head>\bpassword\s*=\s*)(?:'(?:[^'\\]|\\.)*'|\S*)", re.IGNORECASE
)


def is_url(location: Path | str) -> bool:
    """Whether a store location is a PostgreSQL URL (else it is a SQLite file path)."""
    return isinstance(location, str) and location.lower().startswith(URL_SCHEMES)


def shown(location: Path | str) -> str:
    """The location as messages, logs and ``harness.status`` may show it, every password
    form libpq reads replaced by ``***``: the user part's (``user:pass@``), a query
    parameter whose name *decodes* to ``password`` (libpq decodes names: ``%70assword``),
    and the keyword form's ``password=…`` (a conninfo string)."""
    text = str(location)
    if is_url(text):
        return _masked_url(text)
    return _KEYWORD_PASSWORD.sub(r"\g<head>***", text)


def has_password(location: Path | str) -> bool:
    """Whether a store location holds a password in any form ``shown`` masks."""
    return shown(location) != str(location)


def _masked_url(url: str) -> str:
    scheme, _, rest = url.partition("://")
    rest, hash_mark, fragment = rest.partition("#")
    before, mark, query = rest.partition("?")
    if "@" in before:  # the last ``@``: a password may hold ``@`` or ``/`` unencoded
        userinfo, _, after = before.rpartition("@")
        if ":" in userinfo:
            userinfo = userinfo.partition(":")[0] + ":***"
        before = f"{userinfo}@{after}"
    if mark:
        query = "&".join(_masked_parameter(part) for part in query.split("&"))
    return f"{scheme}://{before}{mark}{query}{hash_mark}{fragment}"


def _masked_parameter(part: str) -> str:
    name, equals, _value = part.partition("=")
    if equals and urllib.parse.unquote(name).strip().lower() == "password":
        return f"{name}=***"
    return part


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

    def reader(self) -> AbstractContextManager[Connection]: ...

    def data_version(self) -> int: ...


def db_errors() -> tuple[type[Exception], ...]:
    """The exceptions a store operation may raise from its engine."""
    import psycopg

    return (sqlite3.Error, psycopg.Error)


__all__ = [
    "URL_SCHEMES",
    "Connection",
    "Cursor",
    "Database",
    "db_errors",
    "has_password",
    "is_url",
    "shown",
]
