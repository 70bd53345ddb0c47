"""Building each turn's request: the ``Assembler`` protocol the loop calls, and its two
implementations over ``harness.context`` — ``BoundedAssembler`` (the §3 rules under the
budget, ``BoundedContext``) and ``NaiveAssembler`` (the honest baseline the demo and the
benchmarks compare against, ``NaiveContext``: every result appended, nothing already sent
changed, the trailer last).

Both send the system prompt, the task frame, the memory block (chosen at the first turn;
the bounded one re-chooses it only when its window slides), the observation section in
the contract's wire form (``transcript`` or ``flat``), then the trailer: step N of M, the
tokens spent and the call to act — the only text that changes every turn. Each assembly
writes the memory events when the block was (re)chosen, the re-read events, and one
``assembled`` event with ``prefixChars``, ``breaks`` and ``refreshed``.

The loop calls ``assemble`` (a context-overflow retry calls it again with a smaller
ceiling: nothing is recorded until then), sends the request, and calls ``commit`` once the
provider accepted it — before the tools run — so the ledger records the turn's refresh
entries where the assembly placed them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from harness.context import (
    BoundedContext,
    Ceiling,
    Emission,
    MemorySource,
    NaiveContext,
    RunFrame,
    Wire,
)
from harness.context.append_meter import AppendMeter
from harness.context.snapshot import Snapshot, dump
from harness.contract import TaskContract
from harness.ledger import Ledger
from harness.memory import MemoryBlock
from harness.prompts import frame, system_prompt, trailer
from harness.run.reread import make_refresher
from harness.types import Request, ToolSchema, TraceEvent

if TYPE_CHECKING:
    from harness.memory import RunMemory
    from harness.policy import Gate
    from harness.workspace import Workspace


@dataclass(frozen=True)
class AskState:
    """What the loop knows when it asks for a request."""

    step: int
    effective: int  # the per-request ceiling in tokens (§2)
    spent: int


@dataclass(frozen=True)
class Assembled:
    """One assembled request and what it is made of: the engine's emission (its numbers:
    ``turn.emission``), the notes the memory block carries when it was (re)chosen this turn,
    and the trace events."""

    emission: Emission
    recalled: tuple[tuple[str, str], ...]  # (scope, key) of each note the memory block carries
    events: tuple[TraceEvent, ...]

    @property
    def request(self) -> Request:
        return self.emission.request

    @property
    def effective(self) -> int:
        return self.emission.effective


class Assembler(Protocol):
    """The context of one run over its ledger (the loop records into ``ledger``)."""

    ledger: Ledger

    def assemble(self, state: AskState) -> Assembled: ...

    def commit(self, turn: Assembled) -> None: ...

    def snapshot(self) -> str | None: ...

    def cache_of(self, provider: str) -> None: ...

    @property
    def vs_append(self) -> float | None: ...


class _Assembler:
    """What both assemblers share: the frame, the memory block, the trailer, the events."""

    def __init__(
        self,
        contract: TaskContract,
        schemas: tuple[ToolSchema, ...],
        memory: RunMemory | None,
        attached: str = "",
        instructions: str = "",
    ) -> None:
        self.contract = contract
        self.memory = memory
        self.ledger = Ledger()
        self.frame = RunFrame(
            system_prompt(s.name for s in schemas),
            frame(contract, attached, instructions),
            tools=schemas,
            schema_chars=len(json.dumps([s.parameters for s in schemas])),
            wire=Wire(contract.context_wire),
        )
        self._block = MemoryBlock(text="")
        self._notes: tuple[tuple[str, str], ...] = ()  # what the last request's block carried
        self.turn = 1  # the run's turn in its conversation (§11)

    engine: BoundedContext | NaiveContext

    def snapshot(self) -> str | None:
        """The context as JSON for the conversation's next turn (None: not kept)."""
        return None

    def cache_of(self, provider: str) -> None:
        """The requests go to ``provider`` (its prompt cache's idle limit, §3 rule 5)."""

    @property
    def vs_append(self) -> float | None:
        """The run's cache-priced cost so far against appending's (None: not measured)."""
        return None

    def emit(self, state: AskState, text: str, memory: MemorySource) -> Emission:
        raise NotImplementedError

    def commit(self, turn: Assembled) -> None:
        self.engine.commit(turn.emission)
        self._notes = turn.recalled

    def assemble(self, state: AskState) -> Assembled:
        c = self.contract
        self._block = MemoryBlock(text="")
        text = trailer(state.step, c.max_steps, state.spent, c.token_budget)
        emission = self.emit(state, text, lambda: self._memory_text(state))
        events = emission.events
        recalled = self._notes  # the block sent last turn, unless it was (re)chosen now
        if emission.memory_chosen:
            block = self._block
            recalled = tuple(block.recalled) if emission.memory else ()
            events = (*block.events, *events)
        assembled = emission.assembled_event(recalled=len(recalled))
        return Assembled(emission, recalled, (*events, assembled))

    def _memory_text(self, state: AskState) -> str:
        """The memory block, at most a quarter of the ceiling (§4.4); called by the engine
        only when it (re)chooses the block."""
        if self.memory is None:
            return ""
        self._block = self.memory.block(
            max_chars=Ceiling(state.effective).memory_chars,
            goal=self.contract.goal,
            touched=self.ledger.touched(),
            step=state.step,
        )
        return self._block.text


# How long a provider keeps a prompt prefix cached while idle (seconds): Anthropic's
# default breakpoints live 5 minutes; OpenAI keeps prefixes "5 to 10 minutes of inactivity"
# (longer off-peak), so 10 minutes is when its cache has surely gone cold.
CACHE_IDLE_SECONDS = {"anthropic": 300.0}
DEFAULT_CACHE_IDLE_SECONDS = 600.0


def cache_idle_seconds(provider: str, setting: float | None = None) -> float:
    """The idle time after which ``provider``'s cache is taken as expired (``setting``, the
    contract's ``contextBudget.cacheIdleSeconds``, wins)."""
    if setting is not None:
        return setting
    return CACHE_IDLE_SECONDS.get(provider, DEFAULT_CACHE_IDLE_SECONDS)


class BoundedAssembler(_Assembler):
    """The §3 rules: stale reads refreshed through the gate (their changed lines appended),
    every entry capped, the window sliding in steps under the effective budget, the prefix
    stable between slides — and sliding for free before a request sent after the
    provider's cache went cold (``cache_idle`` seconds since the last one, on ``clock``)."""

    engine: BoundedContext
    cache_idle: float = DEFAULT_CACHE_IDLE_SECONDS
    clock: Callable[[], float] = staticmethod(time.time)
    sent_at: float | None = None  # when the last request was sent (``clock``)

    def __init__(
        self,
        contract: TaskContract,
        schemas: tuple[ToolSchema, ...],
        *,
        memory: RunMemory | None,
        workspace: Workspace,
        gate: Gate,
        attached: str = "",
        instructions: str = "",
    ) -> None:
        super().__init__(contract, schemas, memory, attached, instructions)
        self.workspace = workspace
        self.gate = gate
        low_water = contract.context_budget.low_water
        self.engine = BoundedContext(self.ledger, self.frame, low_water=low_water)
        self.meter = AppendMeter(self.ledger, self.frame)

    @property
    def vs_append(self) -> float | None:
        return self.meter.ratio

    def cache_of(self, provider: str) -> None:
        setting = self.contract.context_budget.cache_idle_seconds
        self.cache_idle = cache_idle_seconds(provider, setting)

    def snapshot(self) -> str | None:
        return dump(self.frame.frame, self.turn, self.ledger, self.engine.sent, self.sent_at)

    def commit(self, turn: Assembled) -> None:
        super().commit(turn)
        self.meter.sent(turn.emission)
        self.sent_at = self.clock()

    def continue_from(self, snapshot: Snapshot, turn: int, user_text: str) -> None:
        """Continue the conversation ``snapshot`` left (§11) as its turn ``turn``: its
        frame, its ledger and what its last request sent, then the user's new turn. Call
        before the loop takes the ledger."""
        self.turn = turn
        self.ledger = snapshot.ledger
        self.frame = replace(self.frame, frame=snapshot.frame)
        low_water = self.contract.context_budget.low_water
        self.engine = BoundedContext(self.ledger, self.frame, low_water=low_water)
        self.engine.resume(snapshot.state)
        self.meter = AppendMeter(self.ledger, self.frame)
        self.sent_at = snapshot.sent_at
        self.ledger.add_user(0, user_text)

    def emit(self, state: AskState, text: str, memory: MemorySource) -> Emission:
        return self.engine.assemble(
            step=state.step,
            effective_tokens=state.effective,
            trailer=text,
            refresh=make_refresher(self.workspace, self.gate, Ceiling(state.effective)),
            memory=memory,
            cold=self.sent_at is not None and self.clock() - self.sent_at >= self.cache_idle,
        )


class NaiveAssembler(_Assembler):
    """What a conventional agent sends: every result appended whole, nothing changed."""

    engine: NaiveContext

    def __init__(
        self,
        contract: TaskContract,
        schemas: tuple[ToolSchema, ...],
        *,
        memory: RunMemory | None,
        instructions: str = "",
    ) -> None:
        super().__init__(contract, schemas, memory, instructions=instructions)
        self.engine = NaiveContext(self.ledger, self.frame)

    def emit(self, state: AskState, text: str, memory: MemorySource) -> Emission:
        return self.engine.assemble(
            step=state.step, effective_tokens=state.effective, trailer=text, memory=memory
        )


__all__ = ["AskState", "Assembled", "Assembler", "BoundedAssembler", "NaiveAssembler"]
