"""The stubs folded into one line (§3 rule 5): at a slide, when the stubs older than the
window together exceed an eighth of the observation budget, the whole turns among them
become one line — one user message in the transcript, in place of the turns it covers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.context.emission import COLLAPSED_KIND, Entry, Form
from harness.context.texts import collapse_line

Counts = tuple[int, int, int]  # superseded (or unchanged), older than the window, stale


@dataclass(frozen=True)
class Fold:
    """Ledger items before ``end`` are folded into ``line`` (None: nothing folded)."""

    end: int = 0
    counts: Counts = (0, 0, 0)
    line: Entry | None = None

    @property
    def cost(self) -> int:
        return self.line.cost if self.line is not None else 0

    def extended(self, stubs: Sequence[Entry]) -> Fold:
        """The fold grown over ``stubs``, the entries right after ``end``."""
        if not stubs:
            return self
        counts = _add(self.counts, stubs)
        return Fold(self.end + len(stubs), counts, _line(counts, stubs[-1].seq))

    def line_costs(self, stubs: Sequence[Entry]) -> Callable[[int], int]:
        """``cost(k)``: the fold's line cost once extended over ``stubs[:k]``."""
        prefix: list[Counts] = [self.counts]
        for entry in stubs:
            prefix.append(_add(prefix[-1], (entry,)))

        def cost(k: int) -> int:
            if k == 0:
                return self.cost
            return _line(prefix[k], stubs[k - 1].seq).cost

        return cost


def _add(counts: Counts, stubs: Sequence[Entry]) -> Counts:
    superseded, window, stale = counts
    for entry in stubs:
        if not entry.counted:
            continue
        if entry.form in (Form.SUPERSEDED, Form.UNCHANGED):
            superseded += 1
        elif entry.form is Form.REFUSED:
            stale += 1
        else:
            window += 1
    return superseded, window, stale


def _line(counts: Counts, last: int) -> Entry:
    text = collapse_line(*counts)
    return Entry(last, 0, COLLAPSED_KIND, Form.COLLAPSED, text, covers=sum(counts))
