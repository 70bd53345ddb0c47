"""What the bounded context keeps between turns (§3): every item in the form it was last
sent, the window, the fold, the memory block chosen, the texts of the last request, and
what waits for the next slide: the copies a later result replaced (rule 2) and the stale
copies followed by their refresh entries (rule 3)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from harness.context.emission import Entry
from harness.context.folding import Fold
from harness.ledger import Change, Observation

# What a result is about (rule 2): its key (kind, normalised path or target) and its line
# range (both None: all of it); None for what is never superseded.
Subject = tuple[tuple[str, str], tuple[int | None, int | None]] | None


@dataclass(frozen=True)
class Unrefreshed:
    """A stale read whose refresh failed (the policy refused, the path is gone): the
    refresh entry said so; at the next slide the copy becomes a stub saying why."""

    change: Change
    reason: str


@dataclass
class State:
    items: list[Observation] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    groups: list[int] = field(default_factory=list)  # seq -> first seq of its turn
    subjects: list[Subject] = field(default_factory=list)  # seq -> what it is about
    boundary: int = 0  # items before it are older than the window
    fold: Fold = field(default_factory=Fold)  # the items folded into one line
    cost: int = 0  # chars of the entries after the fold, as sent
    changes: int = 0  # the ledger's changes already checked against the window
    memory: str | None = None  # None until chosen at the first turn
    texts: tuple[str, ...] = ()
    # Until the next slide (rule 5): a carried copy -> the later result replacing it ...
    replaced: dict[int, int] = field(default_factory=dict)
    # ... a stale carried read -> its latest refresh entry, and why a refresh failed.
    stale: dict[int, int] = field(default_factory=dict)
    unrefreshed: dict[int, Unrefreshed] = field(default_factory=dict)

    def copy(self) -> State:
        return replace(
            self,
            items=list(self.items),
            entries=list(self.entries),
            groups=list(self.groups),
            subjects=list(self.subjects),
            replaced=dict(self.replaced),
            stale=dict(self.stale),
            unrefreshed=dict(self.unrefreshed),
        )

    def pending(self, seq: int) -> bool:
        """Whether ``seq`` is a copy the next slide cleans up (replaced, or stale)."""
        return seq in self.replaced or seq in self.stale
