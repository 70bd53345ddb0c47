"""The value types durable memory hands out: a note, what a write did, what a forget did,
a similar note, a recall row, and a scope's usage against its caps. The JSON converters give
the §8.1 shapes (camelCase on the wire)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.camel import camel_json, json_as
from harness.memory.text import GLOBAL, scope_name

if TYPE_CHECKING:
    from harness.types import TraceEvent

KINDS = ("fact", "decision")


def is_operator_note(kind: str, pinned: bool) -> bool:
    """Whose note it is, as the recall block shows it: a ``decision`` (only the operator
    writes those) or a pinned note (only the operator pins) is the user's; anything else
    is the agent's own. ``kind`` is the attribution, not ``run_id``: a note outlives its
    run (``run_id`` becomes NULL when the run is deleted)."""
    return kind == "decision" or pinned


# A scope goes to JSON by its name: "global", or the workspace's path.
_SCOPE = json_as("scope", scope_name)


@dataclass(frozen=True)
class MemoryNote:
    """One stored note. ``scope_key`` is a workspace's canonical path or ``"global"``;
    ``recalls`` counts recall rows, ``recall_runs`` the distinct runs behind them. The
    fields stand in the order of the §8.1 memory note."""

    id: int
    key: str
    value: str
    kind: str
    pinned: bool
    scope_key: str = field(metadata=_SCOPE)
    run_id: int | None
    step: int | None
    created_at: str
    updated_at: str
    recalls: int = 0
    recall_runs: int = 0
    seq: int = 0  # write order across the store: larger is more recent
    last_recall: int = 0  # the recall mark of the step that last carried it (0: never)
    origin: str | None = None  # a global note: the workspace whose run wrote it (§4)
    author: str | None = None  # who wrote it: user@host (§12); None before it was recorded
    author_path: str | None = None  # the canonical path it was written from (§12)

    @property
    def by_operator(self) -> bool:
        return is_operator_note(self.kind, self.pinned)

    @property
    def scope(self) -> str:
        return scope_name(self.scope_key)

    @property
    def is_global(self) -> bool:
        return self.scope_key == GLOBAL

    def to_json(self) -> dict[str, Any]:
        """Exactly the §8.1 memory note."""
        return camel_json(self, leave_out=("id", "recall_runs", "seq", "last_recall", "origin"))


@dataclass(frozen=True)
class SimilarNote:
    """Another key in the same scope whose value says much the same (Jaccard of words)."""

    key: str
    value: str
    jaccard: float

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "value": self.value, "jaccard": round(self.jaccard, 3)}


@dataclass(frozen=True)
class MemoryWriteResult:
    """What ``memory_write`` did. ``note`` is None only when the write was refused
    (``refused`` says why, ``existing`` is the note that stayed)."""

    note: MemoryNote | None
    refused: str | None = None
    existing: MemoryNote | None = None
    replaced: bool = False
    truncated: bool = False
    original_chars: int = 0
    evicted: tuple[MemoryNote, ...] = ()
    similar: tuple[SimilarNote, ...] = ()
    over_cap: bool = False  # still over a cap because everything else is pinned
    events: tuple[TraceEvent, ...] = field(default=(), repr=False)

    @property
    def stored(self) -> bool:
        return self.note is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "note": self.note.to_json() if self.note else None,
            "replaced": self.replaced,
            "truncated": self.truncated,
            "evicted": [n.to_json() for n in self.evicted],
            "similar": [s.to_json() for s in self.similar],
        }


@dataclass(frozen=True)
class MemoryForgetResult:
    """What a run's ``forget`` did: removed ``note``, found nothing, or was refused."""

    note: MemoryNote | None
    refused: str | None = None
    events: tuple[TraceEvent, ...] = field(default=(), repr=False)

    @property
    def removed(self) -> bool:
        return self.note is not None and self.refused is None


@dataclass(frozen=True)
class MemoryRecall:
    """One recall row: the note ``(scope_key, key)`` was carried in ``run_id``'s ``step``."""

    run_id: int
    step: int
    scope_key: str = field(metadata=_SCOPE)
    key: str
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return camel_json(self)


@dataclass(frozen=True)
class MemoryUsage:
    """A scope's notes and value characters, for "memory counts vs caps"."""

    scope_key: str = field(metadata=_SCOPE)
    entries: int
    chars: int
    pinned: int

    def to_json(self) -> dict[str, Any]:
        return camel_json(self)
