"""The store (§5): the trace of every run and durable memory (§4), behind one facade, in a
SQLite file or (§12) a PostgreSQL database named by a ``postgresql://`` URL.

connection.py   what the SQL modules see of either engine; URLs told from paths, shown safely
base.py         the SQLite connection: private files, WAL, busy timeout, migrations, time stamps
postgres.py     the PostgreSQL connection: migrations under an advisory lock, writers in turn
dialect.py      the SQL translated where PostgreSQL's differs
permissions.py  0600 / 0700 for the store's files and the directories it creates
schema.py       the ordered migrations
owner.py        which process owns a run, and whether it is gone
records.py      the values written and read back (``StepRecord``, ``RunRow``, …)
runs.py         run rows; marking runs whose process died ``interrupted``
steps.py        committing a step; reading steps with the §8.1 counts
edits.py        write intents and edits (what revert reads)
notes.py        memory's SQL
memory.py       memory's operations: rows + rules + the recall index, one transaction each
facade.py       ``Store``
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from harness.store.base import default_store_path, local_dir, now_iso, store_location

if TYPE_CHECKING:
    from harness.store.facade import Store
    from harness.store.records import (
        EditRow,
        ObservationRecord,
        RunRow,
        RunTrace,
        StepDetail,
        StepRecord,
        StepRow,
    )

# Loaded when first named (PEP 562): a front that only locates its store (the ACP agent
# answering ``initialize``, issue 38) does not pay for the facade and its SQL.
_LAZY = {
    "Store": "harness.store.facade",
    **dict.fromkeys(
        ("EditRow", "ObservationRecord", "RunRow", "RunTrace", "StepDetail", "StepRecord"),
        "harness.store.records",
    ),
    "StepRow": "harness.store.records",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "EditRow",
    "ObservationRecord",
    "RunRow",
    "RunTrace",
    "StepDetail",
    "StepRecord",
    "StepRow",
    "Store",
    "default_store_path",
    "local_dir",
    "now_iso",
    "store_location",
]
