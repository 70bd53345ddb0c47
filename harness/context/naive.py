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
from harness.context.wire import MessageCache, render, request_texts, shared_prefix_chars
from harness.ledger import MESSAGE, Ledger
from harness.tokens import estimate_tokens


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
        memory_text = old.memory
        chosen = memory_text is None
        if memory_text is None:
            memory_text = memory() if callable(memory) else memory
        new = self.ledger.since(len(old.entries))
        pairing = pair(new)
        entries = list(old.entries)
        for obs in new:
            calls = pairing.calls.get(obs.seq, ()) if obs.kind == MESSAGE else ()
            call_id = pairing.answers.get(obs.seq)
            entries.append(Entry(obs.seq, obs.step, obs.kind, Form.WHOLE, obs.text, calls, call_id))
        request = render(
            entries,
            system=self.frame.system,
            frame=self.frame.frame,
            memory=memory_text,
            trailer=trailer,
            tools=self.frame.tools,
            wire=self.frame.wire,
            cache=self._messages,
        )
        texts = request_texts(
            entries,
            system=self.frame.system,
            frame=self.frame.frame,
            memory=memory_text,
            trailer=trailer,
        )
        emission = Emission(
            step=step,
            effective=effective_tokens,
            memory=memory_text,
            memory_chosen=chosen,
            entries=tuple(entries),
            trailer=trailer,
            request=request,
            refreshes=(),
            confirmations=(),
            events=(),
            texts=tuple(texts),
            prefix_chars=shared_prefix_chars(old.texts, texts),
            breaks=(),
            est_tokens=estimate_tokens(sum(map(len, texts)) + self.frame.schema_chars),
            naive=True,
        )
        self._pending = (emission, _Sent(entries, memory_text, tuple(texts)))
        return emission

    def commit(self, emission: Emission) -> None:
        if self._pending is None or self._pending[0] is not emission:
            raise ValueError("commit the emission the last assemble returned")
        self._sent, self._pending = self._pending[1], None
