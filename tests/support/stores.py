"""Reading a store the way another process would, on either backend (SQLite file or
PostgreSQL URL), for tests that check what was committed."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg

from harness.store.connection import is_url
from harness.store.dialect import statement
from harness.store.postgres import PgRow

INTEGRITY_ERRORS = (sqlite3.IntegrityError, psycopg.IntegrityError)


def raw_rows(location: Path | str, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
    """Rows (readable by position and by name) read through a connection of their own."""
    if is_url(location):
        with psycopg.connect(str(location)) as conn:
            cur = conn.execute(statement(sql), params)  # type: ignore[arg-type]
            names = {c.name: i for i, c in enumerate(cur.description or ())}
            return [PgRow(r, names) for r in cur.fetchall()]
    conn = sqlite3.connect(location)
    conn.row_factory = sqlite3.Row
    try:
        return list(conn.execute(sql, params).fetchall())
    finally:
        conn.close()


def raw_execute(location: Path | str, sql: str, params: tuple[object, ...] = ()) -> None:
    """One statement committed through a connection of its own."""
    if is_url(location):
        with psycopg.connect(str(location), autocommit=True) as conn:
            conn.execute(statement(sql), params)  # type: ignore[arg-type]
        return
    conn = sqlite3.connect(location, isolation_level=None)
    try:
        conn.execute(sql, params)
    finally:
        conn.close()


__all__ = ["INTEGRITY_ERRORS", "raw_execute", "raw_rows"]
