"""The honest baseline (§8 demo): what a conventional agent sends. Every result and every
model turn is appended whole, nothing already sent ever changes (no caps, no stubs, no
re-reads: a stale read stays as it was), the memory block is the first turn's, and the
trailer is last — so it caches as well as a request can, and grows without bound.
Same interface and the same two wire forms as ``BoundedContext``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.context.emission import Emission, Entry, Form
from harness.context.frame import RunFrame, Sender
from harness.context.memory_block import MemorySource
from harness.context.outcome import Refresher
from harness.context.pairing import pair
from harness.ledger import MESSAGE, Ledger


@dataclass
class _Sent:
    entries: list[Entry] = field(default_factory=list)
    memory: str | None = None
    texts: tuple[str, ...] = ()


class NaiveContext(Sender[_Sent]):
    naive = True

    def __init__(self, ledger: Ledger, frame: RunFrame) -> None:
        super().__init__(ledger, frame, _Sent())

    def assemble(
        self,
        *,
        step: int,
        effective_tokens: int,
        trailer: str,
        refresh: Refresher | None = None,
        memory: MemorySource = "",
    ) -> Emission:
        """``refresh`` is ignored: a conventional agent re-reads nothing."""
        old = self._sent
        chosen = old.memory is None
        memory_text = old.memory
        if memory_text is None:
            memory_text = memory() if callable(memory) else memory
        entries = (*old.entries, *self._new_entries(len(old.entries)))
        emission = self._emission(
            step, effective_tokens, trailer, memory_text, chosen=chosen, entries=entries
        )
        return self._pend(emission, _Sent(list(entries), memory_text, emission.texts))

    def _new_entries(self, start: int) -> list[Entry]:
        """Every ledger item from ``start`` on, whole: results, and turns with the calls
        that have their answers."""
        new = self.ledger.since(start)
        pairing = pair(new)
        return [
            Entry(
                obs.seq,
                obs.step,
                obs.kind,
                Form.WHOLE,
                obs.text,
                pairing.calls.get(obs.seq, ()) if obs.kind == MESSAGE else (),
                pairing.answers.get(obs.seq),
            )
            for obs in new
        ]

    def commit(self, emission: Emission) -> None:
        self._sent, self._pending = self._pending_state(emission), None
