"""The honest baseline (§8 demo): what a conventional agent sends. Every result and every
model turn is appended whole, nothing already sent ever changes (no caps, no stubs, no
re-reads: a stale read stays as it was), the memory block is the first turn's, and the
trailer is last — so it caches as well as a request can, and grows without bound.
Same interface and the same two wire forms as ``BoundedContext``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.context.emission import Emission, Entry, Form
from harness.context.engine import MemorySource, RunFrame
from harness.context.pairing import pair
from harness.context.refresh import Refresher
from harness.context.wire import MessageCache, shared_prefix_chars
from harness.ledger import MESSAGE, Ledger


@dataclass
class _Sent:
    entries: list[Entry] = field(default_factory=list)
    memory: str | None = None
    texts: tuple[str, ...] = ()


class NaiveContext:
    naive = True

    def __init__(self, ledger: Ledger, frame: RunFrame) -> None:
        self.ledger = ledger
        self.frame = frame
        self._sent = _Sent()
        self._pending: tuple[Emission, _Sent] | None = None
        self._messages: MessageCache = {}

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
        request, texts, est = self.frame.request(entries, memory_text, trailer, self._messages)
        emission = Emission(
            step=step,
            effective=effective_tokens,
            memory=memory_text,
            memory_chosen=chosen,
            entries=entries,
            trailer=trailer,
            request=request,
            refreshes=(),
            confirmations=(),
            events=(),
            texts=tuple(texts),
            prefix_chars=shared_prefix_chars(old.texts, texts),
            breaks=(),
            est_tokens=est,
            naive=True,
        )
        self._pending = (emission, _Sent(list(entries), memory_text, tuple(texts)))
        return emission

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
        if self._pending is None or self._pending[0] is not emission:
            raise ValueError("commit the emission the last assemble returned")
        self._sent, self._pending = self._pending[1], None
