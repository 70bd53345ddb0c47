"""The SQLite store: schema and migrations, the trace, and durable memory."""

from __future__ import annotations

from harness.store.base import default_store_path
from harness.store.memory import MemoryStore
from harness.store.trace import (
    EditRow,
    ObservationRecord,
    RunRow,
    StepDetail,
    StepRecord,
    StepRow,
)


class Store(MemoryStore):
    """The store: ``Store(path)`` opens (and migrates) the database at ``path``."""


__all__ = [
    "EditRow",
    "ObservationRecord",
    "RunRow",
    "StepDetail",
    "StepRecord",
    "StepRow",
    "Store",
    "default_store_path",
]
