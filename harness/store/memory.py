"""Durable memory in the store (§4): notes per workspace and global, recalls, caps and
eviction. Filled in by the memory work; the trace commits recall rows through
``_insert_recalls``."""

from __future__ import annotations

from harness.store.trace import TraceStore


class MemoryStore(TraceStore):
    """Memory operations on top of the trace store."""
