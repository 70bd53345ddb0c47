"""What the bounded context saves (issue 34): the run's requests so far, cache-priced,
against what the honest append-only agent (``NaiveContext`` over the same ledger, without
the bounded assembler's refresh entries) would have sent with the same frame, memory block
and trailers. Priced on a prefix cache: the characters a request shares from its start with
the one before are reads (0.1 of the input price), the rest writes (1.25) — the benchmarks'
prices (../shared/notes/prompt-caching.md), so the one number is the benchmarks' ratio.
"""

from __future__ import annotations

from harness.context.emission import Emission
from harness.context.frame import RunFrame
from harness.context.naive import NaiveContext
from harness.ledger import Ledger

CACHE_READ = 0.1
CACHE_WRITE = 1.25


def units(emission: Emission) -> float:
    """``emission``'s cache-priced input, in characters × price."""
    total = sum(map(len, emission.texts))
    shared = emission.prefix_chars
    return shared * CACHE_READ + (total - shared) * CACHE_WRITE


class AppendMeter:
    """Both costs, accumulated request by request as the bounded ones are sent."""

    def __init__(self, ledger: Ledger, frame: RunFrame) -> None:
        self._append = NaiveContext(ledger, frame, own_only=True)
        self.bounded = 0.0
        self.appending = 0.0

    def sent(self, emission: Emission) -> None:
        """The bounded ``emission`` was sent: price it and what appending would have sent."""
        shadow = self._append.assemble(
            step=emission.step,
            effective_tokens=emission.effective,
            trailer=emission.trailer,
            memory=emission.memory,
        )
        self._append.commit(shadow)
        self.bounded += units(emission)
        self.appending += units(shadow)

    @property
    def ratio(self) -> float | None:
        """The run's cost so far over appending's (None before the first request)."""
        return self.bounded / self.appending if self.appending else None
