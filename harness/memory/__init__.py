"""Durable memory (§4): what the agent learned, kept per workspace (and globally) in the
store, capped, evicted by evidence, and recalled into each turn as its own notes.

    text.py    scope keys, key checks, value caps, word normalisation, Jaccard, escaping
    notes.py   the value types (``MemoryNote``, ``MemoryWriteResult``, …), their JSON, and
               whose note is whose (``is_operator_note``)
    rules.py   a write's rules on plain values: checks, caps, the refusal of the user's
               notes, the eviction order and plan, the restatement check
    index.py   word sets cached by content and the per-scope inverted index
    recall.py  ``RecallIndex``: every scope's index, built from rows, kept current
    block.py   the recall block's text (the user's decisions apart from the agent's notes)
               and the greedy fill under its share
    events.py  the trace events of writes, evictions, refusals, withdrawals, operator acts
    run.py     ``RunMemory``: remember, forget and the block, as one run uses them (global
               notes only from a folder the user trusts)

Nothing here runs SQL: ``harness.store`` reads the rows, applies these rules and keeps the
recall index current (``Store.memory_*``); the model's tools are in ``harness.tools.memory``,
the operator's commands in ``harness.cli.memory``.

The package gives what a run and its tests take from memory as a whole (``RunMemory``, the
block, the scope and word functions); the value types are imported from ``notes``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.exports import lazy_exports

if TYPE_CHECKING:
    from harness.memory.run import MemoryBlock, MemoryOutcome, RunMemory
    from harness.memory.text import GLOBAL, TRUNCATION_MARK, jaccard, scope_key, words

__getattr__ = lazy_exports(
    __name__,
    {
        "run": ("MemoryBlock", "MemoryOutcome", "RunMemory"),
        "text": ("GLOBAL", "TRUNCATION_MARK", "jaccard", "scope_key", "words"),
    },
)

__all__ = [
    "GLOBAL",
    "TRUNCATION_MARK",
    "MemoryBlock",
    "MemoryOutcome",
    "RunMemory",
    "jaccard",
    "scope_key",
    "words",
]
