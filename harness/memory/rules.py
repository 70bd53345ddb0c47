"""The rules of a memory write (§4), over plain values: what a write may ask for, what it
stores, whether the note is the user's (pinned or written by the user) and so refuses a
run, which notes it evicts and in what order, and which other notes it restates. No SQL and
no store: the store reads rows, asks these rules, and applies their verdicts inside its
transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter

from harness.contract import MemoryLimits
from harness.errors import MemoryInputError
from harness.memory.index import ScopeIndex
from harness.memory.notes import KINDS, MemoryNote, SimilarNote
from harness.memory.text import cap_value, check_key, clean_value

EVICTION_ORDER = ("recall_runs", "last_recall", "seq")
"""Eviction order (§4), as note fields, first to evict first: fewest distinct runs that
recalled it, then least recently recalled (0 = never), then oldest written. The store sorts
its candidate rows by these columns; ``eviction_key`` is the same order in Python."""

eviction_key = attrgetter(*EVICTION_ORDER)

# Why a run's write or forget was refused (the ``reason`` of its ``memory_refused`` event).
PINNED = "pinned"  # the user pinned the note
USERS = "user's note"  # the user wrote it (kind ``decision``, from the CLI or an editor)
UNTRUSTED = "untrusted"  # a global note, from a folder the user has not trusted (§6.3)


@dataclass(frozen=True)
class NoteWrite:
    """A checked write: the key as stored, the value as stored (capped) and what it was."""

    scope_key: str
    key: str
    value: str
    kind: str
    run_id: int | None
    step: int | None
    pinned: bool | None  # the operator's pin; None keeps the note's (new notes: unpinned)
    truncated: bool
    original_chars: int

    @property
    def operator(self) -> bool:
        """A write with no run is the operator's: it may replace and pin pinned notes."""
        return self.run_id is None


def note_write(  # noqa: PLR0917 -- the arguments of the §4 memory_write, in its order
    scope_key: str,
    key: str,
    value: str,
    run_id: int | None,
    step: int | None,
    kind: str,
    *,
    pinned: bool | None,
    limits: MemoryLimits,
) -> NoteWrite:
    """Check a write and cap its value (§4: over ``max_entry_chars`` it is cut to exactly
    that many characters ending in the truncation mark, never refused).

    Raises ``MemoryInputError`` for a bad key, an empty value, an unknown kind, or a run
    asking to pin."""
    stored_key = check_key(key)
    if kind not in KINDS:
        raise MemoryInputError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if not isinstance(value, str) or not value.strip():
        raise MemoryInputError("a note's value must not be empty; to remove a note, forget it")
    if run_id is not None and pinned is not None:
        raise MemoryInputError("pinning is the operator's act; a run cannot pin a note")
    stored, truncated = cap_value(clean_value(value), limits.max_entry_chars)
    return NoteWrite(
        scope_key, stored_key, stored, kind, run_id, step, pinned, truncated, len(value)
    )


def refusal(existing: MemoryNote | None, *, operator: bool) -> str | None:
    """Why a write or forget of ``existing`` must not happen, or None: a pinned note and a
    note the user wrote (``decision``) are the user's, and a run can neither change nor
    forget them (§4)."""
    if existing is None or operator:
        return None
    if existing.pinned:
        return PINNED
    if existing.by_operator:
        return USERS
    return None


@dataclass(frozen=True)
class EvictionPlan:
    """Which notes a write evicts, why each (``max_entries`` or ``max_chars``), and whether
    the scope is still over a cap afterwards (everything left is pinned)."""

    evicted: tuple[MemoryNote, ...] = ()
    reasons: dict[int, str] = field(default_factory=dict)
    over_cap: bool = False


def plan_evictions(
    candidates: Iterable[MemoryNote],
    *,
    entries: int,
    chars: int,
    limits: MemoryLimits,
    keep_id: int,
) -> EvictionPlan:
    """Evict until the scope (``entries`` notes, ``chars`` value characters, the note just
    written included) is within both caps.

    ``candidates`` come in ``eviction_key`` order and are consumed only as far as needed;
    the note just written (``keep_id``) and the user's notes (pinned, or written by the
    user: a run's write must not remove what it may not forget) are never evicted, whatever
    the candidates hold."""
    evicted: list[MemoryNote] = []
    reasons: dict[int, str] = {}
    pending = iter(candidates)
    while entries > limits.max_entries or chars > limits.max_chars:
        note = next(pending, None)
        if note is None:
            break
        if note.by_operator or note.id == keep_id:
            continue
        reasons[note.id] = "max_entries" if entries > limits.max_entries else "max_chars"
        evicted.append(note)
        entries -= 1
        chars -= len(note.value)
    over = entries > limits.max_entries or chars > limits.max_chars
    return EvictionPlan(tuple(evicted), reasons, over)


def restatements(
    index: ScopeIndex, value_words: frozenset[str], key: str, gone: Iterable[str] = ()
) -> tuple[SimilarNote, ...]:
    """Other notes of the scope whose value overlaps ``value_words`` (Jaccard >= 0.6 of
    normalised words, most similar first), leaving out ``key`` itself and the notes the
    write evicted (``gone``)."""
    left_out = set(gone)
    return tuple(
        SimilarNote(key=n.key, value=n.value, jaccard=j)
        for n, j in index.similar(value_words, exclude_key=key)
        if n.key not in left_out
    )


__all__ = [
    "EVICTION_ORDER",
    "PINNED",
    "UNTRUSTED",
    "USERS",
    "EvictionPlan",
    "NoteWrite",
    "eviction_key",
    "note_write",
    "plan_evictions",
    "refusal",
    "restatements",
]
