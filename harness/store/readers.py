"""Read connections of their own for each thread, so a slow read of the store never holds up
another read or a write of the same process (issue 30, finding 13: ``harness.status``
waited behind a listing of a million runs). SQLite's WAL and PostgreSQL's MVCC both let a
reader read while others read and write; what a store shared one connection under one lock
for was only ever the writes."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

C = TypeVar("C")


class _Held(Generic[C]):
    """One thread's read connection; ``close`` runs once, when the thread ends (its
    ``threading.local`` goes) or when the store closes, whichever is first."""

    def __init__(self, conn: C, close: Callable[[], None]) -> None:
        self.conn = conn
        self._finalizer = weakref.finalize(self, close)

    def close(self) -> None:
        self._finalizer()


class ThreadReaders(Generic[C]):
    """Per-thread read connections made by ``open`` (a connection and how to close it), and
    the depth of this thread's write transactions: a thread inside one reads through the
    writer's connection (its own uncommitted writes are visible only there)."""

    def __init__(self, open_reader: Callable[[], tuple[C, Callable[[], None]]]) -> None:
        self._open = open_reader
        self._local = threading.local()
        self._all: weakref.WeakSet[_Held[C]] = weakref.WeakSet()
        self._guard = threading.Lock()

    def get(self) -> C | None:
        """This thread's read connection, or None inside a write transaction."""
        if getattr(self._local, "writing", 0):
            return None
        held: _Held[C] | None = getattr(self._local, "held", None)
        if held is None:
            held = _Held(*self._open())
            with self._guard:
                self._all.add(held)
            self._local.held = held
        return held.conn

    def writing(self, step: int) -> None:
        """Count this thread into (+1) or out of (-1) a write transaction."""
        self._local.writing = getattr(self._local, "writing", 0) + step

    def close_all(self) -> None:
        with self._guard:
            held = list(self._all)
        for reader in held:
            reader.close()


__all__ = ["ThreadReaders"]
