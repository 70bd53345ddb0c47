"""The trace events of durable memory (``context_events`` rows): a write, an eviction, a
refusal, a withdrawal and the operator's actions. Every detail names the scope and key and,
where a note is gone or replaced, keeps its value, so the trace can say what was lost."""

from __future__ import annotations

from collections.abc import Sequence

from harness.memory.notes import MemoryNote, SimilarNote
from harness.memory.text import scope_name
from harness.types import TraceEvent


def note_detail(note: MemoryNote) -> dict[str, object]:
    """The note as its events name it; a global note a run wrote, with that run's workspace."""
    detail: dict[str, object] = {
        "scope": note.scope,
        "scopeKey": note.scope_key,
        "key": note.key,
        "value": note.value,
        "kind": note.kind,
        "pinned": note.pinned,
    }
    if note.origin is not None:
        detail["origin"] = note.origin
    return detail


def write_event(
    note: MemoryNote,
    *,
    replaced: bool,
    truncated: bool,
    original_chars: int,
    similar: Sequence[SimilarNote],
    operator: bool,
) -> TraceEvent:
    detail = {
        **note_detail(note),
        "chars": len(note.value),
        "replaced": replaced,
        "truncated": truncated,
        "originalChars": original_chars,
        "similar": [s.key for s in similar],
        "by": "operator" if operator else "run",
    }
    return TraceEvent("memory_write", detail)


def evict_event(note: MemoryNote, reason: str, written: str) -> TraceEvent:
    detail = {
        **note_detail(note),
        "reason": reason,
        "recallRuns": note.recall_runs,
        "recalls": note.recalls,
        "writtenKey": written,
    }
    return TraceEvent("memory_evict", detail)


def refused_event(note: MemoryNote, action: str, reason: str) -> TraceEvent:
    """A run's ``remember``/``forget`` of the user's note (``reason``: pinned, user's note)."""
    detail = {**note_detail(note), "action": action, "reason": reason}
    return TraceEvent("memory_refused", detail)


def forget_event(note: MemoryNote) -> TraceEvent:
    """A run withdrew a note."""
    return TraceEvent("memory_forget", {**note_detail(note), "found": True, "by": "run"})


def forget_missing_event(scope_key: str, key: str) -> TraceEvent:
    """A run asked to forget a key that is not there."""
    detail = {"scope": scope_name(scope_key), "scopeKey": scope_key, "key": key, "found": False}
    return TraceEvent("memory_forget", detail)


def operator_event(kind: str, note: MemoryNote) -> TraceEvent:
    """``memory_pin`` or ``memory_delete`` by the operator."""
    return TraceEvent(kind, {**note_detail(note), "by": "operator"})


def clear_event(scope_key: str, keys: Sequence[str]) -> TraceEvent:
    """The operator cleared a scope; the keys say what went."""
    detail = {
        "scope": scope_name(scope_key),
        "scopeKey": scope_key,
        "deleted": len(keys),
        "keys": list(keys),
        "by": "operator",
    }
    return TraceEvent("memory_clear", detail)
