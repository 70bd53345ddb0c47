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

from collections.abc import Callable
from dataclasses import dataclass

from harness.context.emission import Emission, Entry
from harness.context.refresh import Refresher
from harness.context.state import State
from harness.context.turn import Placement, Turn
from harness.context.wire import MessageCache, Wire, render, request_texts, shared_prefix_chars
from harness.contract import entry_cap_chars
from harness.ledger import Ledger
from harness.tokens import CHARS_PER_TOKEN, estimate_tokens
from harness.types import PART_SEPARATOR, Request, ToolSchema

MemorySource = str | Callable[[], str]
BREAK_ORDER = ("slide", "stale", "superseded", "memory")


@dataclass(frozen=True)
class RunFrame:
    """What every request of a run opens with, fixed for the run."""

    system: str
    frame: str
    tools: tuple[ToolSchema, ...] = ()
    schema_chars: int = 0  # the tool schemas' size, for the token estimate
    wire: Wire = Wire.TRANSCRIPT

    def request(
        self, entries: tuple[Entry, ...], memory: str, trailer: str, cache: MessageCache
    ) -> tuple[Request, list[str], int]:
        """The request in this run's wire, its texts, and its estimated tokens."""
        request = render(
            entries,
            system=self.system,
            frame=self.frame,
            memory=memory,
            trailer=trailer,
            tools=self.tools,
            wire=self.wire,
            cache=cache,
        )
        texts = request_texts(
            entries, system=self.system, frame=self.frame, memory=memory, trailer=trailer
        )
        return request, texts, estimate_tokens(sum(map(len, texts)) + self.schema_chars)


class BoundedContext:
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
        self.ledger = ledger
        self.frame = frame
        self.low_water = low_water
        self.placement: Placement = rereads
        self._state = State()
        self._pending: tuple[Emission, State] | None = None
        self._messages: MessageCache = {}

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
            self._state,
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
        emission = self._emit(turn, step, effective_tokens, trailer, chosen)
        self._pending = (emission, turn.state)
        return emission

    def commit(self, emission: Emission) -> None:
        """``emission`` was sent: record its re-reads and confirmations in the ledger and
        measure the next turn against it."""
        if self._pending is None or self._pending[0] is not emission:
            raise ValueError("commit the emission the last assemble returned")
        mark = self._state_mark(emission)
        for reread in emission.rereads:
            self.ledger.add_reread(reread, mark)
        moved = {r.reread_of for r in emission.rereads}
        for refresh in emission.refreshes:
            if refresh.seq not in moved:  # shown where the stale read was
                self.ledger.apply_refresh(refresh)
        for confirmation in emission.confirmations:
            self.ledger.confirm(confirmation)
        state = self._pending[1]
        state.texts = emission.texts
        self._state, self._pending = state, None
        # Messages of entries no longer sent as they were are not needed again.
        self._messages = {q: hit for q, hit in self._messages.items() if state.entries[q] is hit[0]}

    def _emit(self, turn: Turn, step: int, effective: int, trailer: str, chosen: bool) -> Emission:
        s, old = turn.state, self._state
        memory = s.memory or ""
        entries = _visible(s)
        request, texts, est = self.frame.request(entries, memory, trailer, self._messages)
        refreshes, confirmations, events, rereads = turn.kept()
        return Emission(
            step=step,
            effective=effective,
            memory=memory,
            memory_chosen=chosen,
            entries=entries,
            trailer=trailer,
            request=request,
            refreshes=tuple(refreshes),
            confirmations=tuple(confirmations),
            events=tuple(events),
            texts=tuple(texts),
            prefix_chars=shared_prefix_chars(old.texts, texts),
            breaks=_breaks(turn, old),
            est_tokens=est,
            rereads=tuple(rereads),
        )

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
