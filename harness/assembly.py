"""Building each turn's request: the ``Assembler`` protocol the loop calls, and its two
implementations — ``BoundedAssembler`` (the §3 rules of ``harness.context`` under the
budget) and ``NaiveAssembler`` (the baseline the demo and benchmarks compare against:
every observation, verbatim).

Both send the same frame: the system prompt, the task frame, the memory block, the
heading, the observation section, and the tool schemas. Each assembly writes one
``assembled`` trace event, with ``prefixChars`` (the characters this request shares from
the start with the previous one) and ``breaks`` (what changed text already sent). Today the
only break told apart is ``memory`` (the recalled notes changed); ``slide``, ``stale`` and
``superseded`` come with the transcript wire form, which re-emits the section entry by entry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from harness.context import assemble, assemble_naive
from harness.contract import TaskContract, entry_cap_chars
from harness.ledger import Ledger, Refresh
from harness.memory import MemoryBlock
from harness.prompts import SYSTEM_PROMPT, frame, observations_heading
from harness.reread import make_refresher
from harness.tokens import estimate_tokens
from harness.types import Request, ToolSchema, TraceEvent

if TYPE_CHECKING:
    from harness.memory import RunMemory
    from harness.policy import Gate
    from harness.workspace import Workspace


@dataclass(frozen=True)
class TurnState:
    """What the loop knows when it asks for a request."""

    step: int
    effective: int  # the per-request ceiling in tokens (§2)
    spent: int
    ledger: Ledger
    previous: Turn | None  # the last request the provider answered, if any


@dataclass(frozen=True)
class Section:
    """The observation section and what it is made of."""

    text: str
    carried: int
    stubbed: int = 0
    reread: int = 0
    collapsed: int = 0
    refreshes: tuple[Refresh, ...] = ()
    events: tuple[TraceEvent, ...] = ()


@dataclass(frozen=True)
class Turn:
    """One assembled request and what it is made of. ``refreshes`` (stale reads re-read)
    become the ledger's once the provider accepted the request."""

    request: Request
    effective: int
    est_tokens: int
    section: Section
    recalled: tuple[tuple[str, str], ...]  # (scope, key) of each note carried
    memory_text: str
    prefix_chars: int
    events: tuple[TraceEvent, ...]


class Assembler(Protocol):
    def assemble(self, state: TurnState) -> Turn: ...


class _Requests:
    """What both assemblers share: the fixed frame, the memory block, and the request."""

    def __init__(
        self, contract: TaskContract, schemas: tuple[ToolSchema, ...], memory: RunMemory | None
    ) -> None:
        self.contract = contract
        self.schemas = schemas
        self.memory = memory
        self._frame = frame(contract)
        self._schema_chars = len(json.dumps([s.parameters for s in schemas]))

    def heading(self, state: TurnState) -> str:
        c = self.contract
        return observations_heading(state.step, c.max_steps, state.spent, c.token_budget)

    def memory_block(self, state: TurnState) -> MemoryBlock:
        if self.memory is None:
            return MemoryBlock(text="")
        return self.memory.block(
            max_chars=state.effective,
            goal=self.contract.goal,
            touched=state.ledger.touched(),
            step=state.step,
        )

    def turn(self, state: TurnState, memory: MemoryBlock, section: Section, naive: bool) -> Turn:
        text, recalled = memory.text, tuple(memory.recalled)
        request = Request.flat(SYSTEM_PROMPT, (self._frame, section.text), tools=self.schemas)
        est = estimate_tokens(request.chars + self._schema_chars)
        previous = state.previous
        prefix = shared_prefix_chars(previous.request, request) if previous else 0
        breaks = ["memory"] if previous is not None and previous.memory_text != text else []
        assembled = TraceEvent(
            "assembled",
            {
                "carried": section.carried,
                "stubbed": section.stubbed,
                "reread": section.reread,
                "collapsed": section.collapsed,
                "recalled": len(recalled),
                "estTokens": est,
                "effective": state.effective,
                "naive": naive,
                "prefixChars": prefix,
                "breaks": breaks,
            },
        )
        events = (*memory.events, *section.events, assembled)
        return Turn(request, state.effective, est, section, recalled, text, prefix, events)


class BoundedAssembler:
    """The §3 rules: superseded reads compacted, stale reads re-read through the gate,
    every entry capped, the window fitted under the effective budget."""

    def __init__(
        self,
        contract: TaskContract,
        schemas: tuple[ToolSchema, ...],
        *,
        memory: RunMemory | None,
        workspace: Workspace,
        gate: Gate,
    ) -> None:
        self._requests = _Requests(contract, schemas, memory)
        self.workspace = workspace
        self.gate = gate

    def assemble(self, state: TurnState) -> Turn:
        memory = self._requests.memory_block(state)
        cap = entry_cap_chars(state.effective)
        assembly = assemble(
            state.ledger,
            step=state.step,
            effective_tokens=state.effective,
            entry_cap_chars=cap,
            memory_block=memory.text,
            refresh=make_refresher(self.workspace, self.gate, cap),
            heading=self._requests.heading(state),
        )
        section = Section(
            assembly.section,
            assembly.carried,
            assembly.stubbed,
            assembly.reread,
            assembly.collapsed,
            assembly.refreshes,
            assembly.events,
        )
        return self._requests.turn(state, memory, section, naive=False)


class NaiveAssembler:
    """What a conventional agent sends: every observation verbatim, nothing left out."""

    def __init__(
        self, contract: TaskContract, schemas: tuple[ToolSchema, ...], *, memory: RunMemory | None
    ) -> None:
        self._requests = _Requests(contract, schemas, memory)

    def assemble(self, state: TurnState) -> Turn:
        memory = self._requests.memory_block(state)
        text = assemble_naive(state.ledger, memory.text, self._requests.heading(state))
        section = Section(text, carried=len(state.ledger))
        return self._requests.turn(state, memory, section, naive=True)


def shared_prefix_chars(previous: Request, request: Request) -> int:
    """The characters of ``request.texts()``, in order, that ``request`` shares from the
    start with ``previous``: whole texts while they are equal, then the common start of the
    first pair that differs (a text boundary is a message or block boundary on the wire,
    so nothing after a difference can be shared)."""
    shared = 0
    for old, new in zip(previous.texts(), request.texts(), strict=False):
        if old != new:
            return shared + common_start(old, new)
        shared += len(new)
    return shared


def common_start(a: str, b: str) -> int:
    """The length of the common start of ``a`` and ``b``, by binary search over slice
    comparisons: long texts cost C comparisons, not a Python step per character."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


__all__ = [
    "Assembler",
    "BoundedAssembler",
    "NaiveAssembler",
    "Section",
    "Turn",
    "TurnState",
    "common_start",
    "shared_prefix_chars",
]
