"""The bounded context of one run (§3): per turn, one emission under the ceiling, whose
already-sent text changes only at a slide, a stale refresh or a differing supersession.

``BoundedContext`` keeps what it sent last turn. Each turn the loop calls ``assemble``
(nothing changes yet: a context-overflow retry assembles again from the same state with a
smaller ``effective``), sends ``emission.request``, then calls ``commit(emission)`` before
anything else is recorded, which records the re-reads (observations of their own, at the
end) and confirmations in the ledger and makes this emission the one the next turn is
measured against.
"""

from __future__ import annotations

from harness.context.emission import Emission, Entry
from harness.context.frame import MemorySource, RunFrame, Sender
from harness.context.refresh import Refresher
from harness.context.state import State
from harness.context.turn import Placement, Turn
from harness.contract import entry_cap_chars
from harness.ledger import Ledger
from harness.tokens import CHARS_PER_TOKEN
from harness.types import PART_SEPARATOR

BREAK_ORDER = ("slide", "stale", "superseded", "memory")


class BoundedContext(Sender[State]):
    """The assembler of one run. ``low_water``: how far the window slides (§2);
    ``rereads``: where a stale read's re-read goes (``"end"``; ``"in_place"`` is kept to
    measure the choice against)."""

    naive = False

    def __init__(
        self,
        ledger: Ledger,
        frame: RunFrame,
        *,
        low_water: float = 0.6,
        rereads: Placement = "end",
    ) -> None:
        if not 0.0 < low_water <= 1.0:
            raise ValueError(f"low_water must be in (0, 1], not {low_water}")
        super().__init__(ledger, frame, State())
        self.low_water = low_water
        self.placement: Placement = rereads

    def assemble(
        self,
        *,
        step: int,
        effective_tokens: int,
        trailer: str,
        refresh: Refresher,
        memory: MemorySource = "",
    ) -> Emission:
        """This turn's emission. ``memory`` (a text, or a callable giving it) is used at the
        first turn and at slides only; ``refresh`` re-reads stale reads."""
        ceiling = effective_tokens * CHARS_PER_TOKEN
        turn = Turn(
            self._sent,
            self.ledger,
            refresh,
            step=step,
            cap=entry_cap_chars(effective_tokens),
            placement=self.placement,
        )
        s = turn.state
        chosen = s.memory is None
        if s.memory is None:
            s.memory = _choose(memory, ceiling)
        turn.admit(self.ledger.since(len(s.items)))
        turn.recheck_window()
        budget = _budget(ceiling, s.memory, trailer)
        if turn.total() > budget:
            if not chosen:
                s.memory, chosen = _choose(memory, ceiling), True
                budget = _budget(ceiling, s.memory, trailer)
            turn.slide(budget, self.low_water)
        emission = self._emission(
            step,
            effective_tokens,
            trailer,
            s.memory or "",
            chosen=chosen,
            entries=_visible(s),
            kept=turn.kept(),
            breaks=_breaks(turn, self._sent),
        )
        return self._pend(emission, s)

    def commit(self, emission: Emission) -> None:
        """``emission`` was sent: record its re-reads and confirmations in the ledger and
        measure the next turn against it."""
        state = self._pending_state(emission)
        mark = self._state_mark(emission)
        for reread in emission.rereads:
            self.ledger.add_reread(reread, mark)
        moved = {r.reread_of for r in emission.rereads}
        for refresh in emission.refreshes:
            if refresh.seq not in moved:  # shown where the stale read was
                self.ledger.apply_refresh(refresh)
        for confirmation in emission.confirmations:
            self.ledger.confirm(confirmation)
        state.texts = emission.texts
        self._sent, self._pending = state, None
        # Messages of entries no longer sent as they were are not needed again.
        self._messages = {q: hit for q, hit in self._messages.items() if state.entries[q] is hit[0]}

    def _state_mark(self, emission: Emission) -> int:
        """The ledger position when ``emission``'s re-reads were read (the first one's)."""
        return emission.rereads[0].seq if emission.rereads else len(self.ledger)


def _visible(s: State) -> tuple[Entry, ...]:
    lead = (s.fold.line,) if s.fold.line is not None else ()
    return (*lead, *s.entries[s.fold.end :])


def _breaks(turn: Turn, old: State) -> tuple[str, ...]:
    """What changed text the last request sent (compared, not assumed)."""
    s = turn.state
    found: set[str] = set()
    for seq, cause in turn.causes.items():
        if seq < old.fold.end:
            continue  # it was folded: nothing of it was sent
        now = s.entries[seq].texts if seq >= s.fold.end else ()
        if now != old.entries[seq].texts:
            found.add(cause)
    if s.fold.line != old.fold.line and old.texts:
        found.add("slide")
    if old.memory is not None and s.memory != old.memory:
        found.add("memory")
    return tuple(b for b in BREAK_ORDER if b in found)


def _choose(memory: MemorySource, ceiling: int) -> str:
    """The memory block, at most a quarter of the ceiling (§3 rule 1): a longer one is not
    sent (the memory module sizes it to the effective budget; this is the guard)."""
    text = memory() if callable(memory) else memory
    return text if len(text) <= ceiling // 4 else ""


def _budget(ceiling: int, memory: str, trailer: str) -> int:
    """The observation budget: the ceiling less the memory block and the trailer (each
    with its separator)."""
    fixed = sum(len(p) + len(PART_SEPARATOR) for p in (memory, trailer) if p)
    return ceiling - fixed
