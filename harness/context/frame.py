"""What both context engines share: the frame every request of a run opens with
(``RunFrame``), and ``Sender``, which renders a turn's emission from it and keeps the
emission pending until ``commit`` says it was sent.

A turn is ``assemble`` (which may run again, for a context-overflow retry, from the same
state), the request sent, then ``commit(emission)``: only then does the state the emission
leaves become the one the next turn is measured against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from harness.context.emission import Emission, Entry, Refreshed
from harness.context.wire import MessageCache, Wire, render, request_texts, shared_prefix_chars
from harness.ledger import Confirmation, Ledger, Observation, Refresh
from harness.tokens import estimate_tokens
from harness.types import Request, ToolSchema, TraceEvent

# What the bounded rules keep of a turn: refreshes, confirmations, events, the refresh
# entries appended, and their sizes for the ``assembled`` event.
Kept = tuple[
    list[Refresh], list[Confirmation], list[TraceEvent], list[Observation], list[Refreshed]
]


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


class Sent(Protocol):
    """What an engine keeps of the last request it sent: at least that request's texts."""

    texts: tuple[str, ...]


S = TypeVar("S", bound=Sent)


class Sender(Generic[S]):
    """An engine's ledger and frame, the state as of the last emission sent (``S``), the
    emission assembled and not yet sent, and the messages already rendered."""

    naive: bool

    def __init__(self, ledger: Ledger, frame: RunFrame, sent: S) -> None:
        self.ledger = ledger
        self.frame = frame
        self._sent = sent
        self._pending: tuple[Emission, S] | None = None
        self._messages: MessageCache = {}

    def _emission(
        self,
        step: int,
        effective: int,
        trailer: str,
        block: str,
        *,
        chosen: bool,
        entries: tuple[Entry, ...],
        kept: Kept | None = None,
        breaks: tuple[str, ...] = (),
    ) -> Emission:
        """The emission of step ``step`` under ``effective`` tokens: the memory ``block``
        (``chosen``: (re)chosen this turn), ``entries`` and the ``trailer``."""
        request, texts, est = self.frame.request(entries, block, trailer, self._messages)
        refreshes, confirmations, events, rereads, refreshed = kept or ([], [], [], [], [])
        return Emission(
            step=step,
            effective=effective,
            memory=block,
            memory_chosen=chosen,
            entries=entries,
            trailer=trailer,
            request=request,
            refreshes=tuple(refreshes),
            confirmations=tuple(confirmations),
            events=tuple(events),
            texts=tuple(texts),
            prefix_chars=shared_prefix_chars(self._sent.texts, texts),
            breaks=breaks,
            est_tokens=est,
            naive=self.naive,
            rereads=tuple(rereads),
            refreshed=tuple(refreshed),
        )

    def _pend(self, emission: Emission, state: S) -> Emission:
        """``emission`` waits for ``commit``; once sent, ``state`` is what it leaves."""
        self._pending = (emission, state)
        return emission

    def _pending_state(self, emission: Emission) -> S:
        """The state ``emission`` leaves; it must be the one the last ``assemble`` gave."""
        if self._pending is None or self._pending[0] is not emission:
            raise ValueError("commit the emission the last assemble returned")
        return self._pending[1]
