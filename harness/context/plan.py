"""The plan of one assembly (§3): from what the last request sent and what the ledger holds
now, the entries of this turn's request.

The engine runs the rules over it in order: admit the new ledger items (cap them, pair
results with calls, rule 2 supersession: ``harness.context.supersede``); check the
carried reads whose files changed and append their refresh entries (rule 3:
``harness.context.refresh``); then, if everything no longer fits, slide the window and
clean up (rule 5: ``harness.context.slide``). Between slides nothing already sent
changes; every change to an entry that was sent is recorded, so ``breaks`` are exact.
"""

from __future__ import annotations

from harness.context.ceiling import Ceiling
from harness.context.emission import CARRIED, Entry, Refreshed
from harness.context.frame import Kept
from harness.context.outcome import Refresher
from harness.context.state import State
from harness.context.subjects import index
from harness.context.texts import cap_entry
from harness.ledger import Confirmation, Ledger, Observation, Refresh
from harness.types import TraceEvent


class Plan:
    """The mutable plan of one assembly over a copy of the state."""

    def __init__(
        self, state: State, ledger: Ledger, refresh: Refresher, *, step: int, ceiling: Ceiling
    ) -> None:
        self.state = state.copy()
        self.sent = len(state.items)  # items before it were in the last request
        self.admitted = self.sent  # items from the ledger; refresh entries come after
        self.ledger = ledger
        self.refresh = refresh
        self.step = step
        self.ceiling = ceiling
        self.mark = ledger.mark()
        self.causes: set[int] = set()  # sent items whose text changed (at a slide only)
        self.slid = False
        self.refreshes: dict[int, Refresh] = {}
        self.confirmations: dict[int, Confirmation] = {}
        self.events: dict[int, TraceEvent] = {}
        self.refreshed: list[Refreshed] = []
        self.appended: list[Observation] = []
        # (path, changed lines) -> the read whose refresh entry this turn shows them
        self.shown: dict[tuple[str, str], Observation] = {}
        self.changed, self.state.changes = ledger.changed_since(state.changes)
        self.subjects = index(self.state)

    def capped(self, text: str) -> str:
        return cap_entry(text, self.ceiling.entry_cap)

    def put(self, seq: int, entry: Entry) -> None:
        s = self.state
        old = s.entries[seq]
        if entry is old:
            return
        if seq >= s.fold.end:
            s.cost += entry.cost - old.cost
        s.entries[seq] = entry
        if seq < self.sent and entry.texts != old.texts:
            self.causes.add(seq)

    def append(self, obs: Observation, entry: Entry) -> None:
        """An item of the assembler's own (a refresh entry), after everything else."""
        s = self.state
        assert obs.seq == len(s.items)
        s.items.append(obs)
        s.groups.append(obs.seq)
        s.subjects.append(None)
        s.entries.append(entry)
        s.cost += entry.cost
        self.appended.append(obs)

    def refresh_of(self, seq: int) -> Refresh | None:
        """The latest refresh of the read ``seq``: this turn's, or the ledger's."""
        return self.refreshes.get(seq) or self.ledger.refresh_of(seq)

    def total(self) -> int:
        return self.state.fold.cost + self.state.cost

    def kept(self) -> Kept:
        """The refreshes, confirmations and events of the reads as finally sent, the
        refresh entries appended (all of them: they hold their positions in the ledger)
        and their sizes."""
        entries = self.state.entries
        confirmations = [c for q, c in self.confirmations.items() if entries[q].form in CARRIED]
        events = [e for _, e in sorted(self.events.items())]
        return (
            list(self.refreshes.values()),
            confirmations,
            events,
            list(self.appended),
            list(self.refreshed),
        )
