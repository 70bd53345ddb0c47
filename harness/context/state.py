"""What the bounded context keeps between turns (§3): every item in the form it was last
sent, the window, the fold, the memory block chosen and the texts of the last request."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from harness.context.emission import Entry
from harness.context.folding import Fold
from harness.context.subjects import Subject
from harness.ledger import Observation


@dataclass
class State:
    """What the assembler keeps between turns: every admitted ledger item in the form it
    was last sent, where the window starts, what is folded, the memory block chosen, and
    the texts of the last request."""

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

    def copy(self) -> State:
        return replace(
            self,
            items=list(self.items),
            entries=list(self.entries),
            groups=list(self.groups),
            subjects=list(self.subjects),
        )
