"""The bounded context of one run (§3): per turn, one emission under the ceiling whose
already-sent text changes only at a slide (and the memory block, re-chosen there).

``BoundedContext`` keeps what it sent last turn. Each turn the loop calls ``assemble``
(nothing changes yet: a context-overflow retry assembles again from the same state with a
smaller ``effective``), sends ``emission.request``, then calls ``commit(emission)`` before
anything else is recorded, which records the refresh entries (observations of their own,
at the end), the refreshes and the confirmations in the ledger, and makes this emission
the one the next turn is measured against.
"""

from __future__ import annotations

from dataclasses import replace

from harness.context.ceiling import Ceiling
from harness.context.emission import Emission, Entry
from harness.context.frame import RunFrame, Sender
from harness.context.memory_block import MemorySource, choose
from harness.context.outcome import Refresher
from harness.context.plan import Plan
from harness.context.refresh import check_window
from harness.context.slide import slide
from harness.context.state import State
from harness.context.supersede import admit
from harness.defaults import DEFAULT_LOW_WATER
from harness.ledger import Ledger


class BoundedContext(Sender[State]):
    """The assembler of one run. ``low_water``: how far the window slides (§2)."""

    naive = False

    def __init__(
        self,
        ledger: Ledger,
        frame: RunFrame,
        *,
        low_water: float = DEFAULT_LOW_WATER,
    ) -> None:
        if not 0.0 < low_water <= 1.0:
            raise ValueError(f"low_water must be in (0, 1], not {low_water}")
        super().__init__(ledger, frame, State())
        self.low_water = low_water

    def assemble(
        self,
        *,
        step: int,
        effective_tokens: int,
        trailer: str,
        refresh: Refresher,
        memory: MemorySource = "",
        cold: bool = False,
    ) -> Emission:
        """This turn's emission. ``memory`` (a text, or a callable giving it) is used at the
        first turn and at slides only; ``refresh`` re-reads stale reads; ``cold``: the
        provider's cache has surely expired since the last request, so the whole prefix is
        written anyway — the window slides now, for free."""
        ceiling = Ceiling(effective_tokens)
        plan = Plan(self._sent, self.ledger, refresh, step=step, ceiling=ceiling)
        s = plan.state
        chosen = s.memory is None
        if s.memory is None:
            s.memory = choose(memory, ceiling)
        admit(plan, self.ledger.since(len(s.items)))
        check_window(plan)
        budget = ceiling.budget(s.memory, trailer)
        cold = cold and bool(self._sent.texts)
        if plan.total() > budget or cold:
            if not chosen:
                s.memory, chosen = choose(memory, ceiling), True
                budget = ceiling.budget(s.memory, trailer)
            slide(plan, budget, self.low_water)
        emission = self._emission(
            step,
            effective_tokens,
            trailer,
            s.memory or "",
            chosen=chosen,
            entries=_visible(s),
            kept=plan.kept(),
            breaks=_breaks(plan, self._sent),
        )
        if cold and emission.breaks:
            emission = replace(emission, free=True)
        return self._pend(emission, s)

    @property
    def sent(self) -> State:
        """The state as of the last emission sent."""
        return self._sent

    def resume(self, state: State) -> None:
        """Continue from ``state`` (a conversation's earlier turn, §11): the next emission
        is measured against the request it left."""
        self._sent, self._pending, self._messages = state, None, {}

    def commit(self, emission: Emission) -> None:
        """``emission`` was sent: record its refresh entries, refreshes and confirmations
        in the ledger and measure the next turn against it."""
        state = self._pending_state(emission)
        mark = emission.rereads[0].seq if emission.rereads else len(self.ledger)
        for entry in emission.rereads:
            self.ledger.add_reread(entry, mark)
        for refresh in emission.refreshes:
            self.ledger.apply_refresh(refresh)
        for confirmation in emission.confirmations:
            self.ledger.confirm(confirmation)
        state.texts = emission.texts
        self._sent, self._pending = state, None
        # Messages of entries no longer sent as they were are not needed again.
        self._messages = {q: hit for q, hit in self._messages.items() if state.entries[q] is hit[0]}


def _visible(s: State) -> tuple[Entry, ...]:
    lead = (s.fold.line,) if s.fold.line is not None else ()
    return (*lead, *s.entries[s.fold.end :])


def _breaks(plan: Plan, old: State) -> tuple[str, ...]:
    """What changed text the last request sent (compared, not assumed): only a slide does,
    and the memory block re-chosen there."""
    s = plan.state
    found = []
    folded = s.fold.line != old.fold.line and bool(old.texts)
    if any(seq >= old.fold.end for seq in plan.causes) or folded:
        found.append("slide")
    if old.memory is not None and s.memory != old.memory:
        found.append("memory")
    return tuple(found)
