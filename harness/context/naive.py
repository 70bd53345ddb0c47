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
from harness.ledger import MESSAGE, Ledger, Observation


@dataclass
class _Sent:
    entries: list[Entry] = field(default_factory=list)
    memory: str | None = None
    texts: tuple[str, ...] = ()
    seen: int = 0  # ledger items taken (with ``own_only``, more than the entries)


class NaiveContext(Sender[_Sent]):
    naive = True

    def __init__(self, ledger: Ledger, frame: RunFrame, *, own_only: bool = False) -> None:
        """``own_only``: leave out the items a bounded assembler appended to the same ledger
        (its refresh entries) — the baseline measured beside a bounded run."""
        super().__init__(ledger, frame, _Sent())
        self.own_only = own_only

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
        new = self.ledger.since(old.seen)
        entries = (*old.entries, *self._new_entries(new))
        emission = self._emission(
            step, effective_tokens, trailer, memory_text, chosen=chosen, entries=entries
        )
        sent = _Sent(list(entries), memory_text, emission.texts, old.seen + len(new))
        return self._pend(emission, sent)

    def _new_entries(self, new: list[Observation]) -> list[Entry]:
        """The new ledger items, whole: results, and turns with the calls that have their
        answers."""
        pairing = pair(new)
        keep = [obs for obs in new if not (self.own_only and obs.reread_of is not None)]
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
            for obs in keep
        ]

    def commit(self, emission: Emission) -> None:
        self._sent, self._pending = self._pending_state(emission), None
