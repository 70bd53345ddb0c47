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

    def extended(self, kinds: Sequence[Form | None]) -> Fold:
        """The fold grown over the items right after ``end``, given the form each is
        folded as (None: not an observation, such as a turn that said nothing)."""
        if not kinds:
            return self
        counts = _add(self.counts, kinds)
        return Fold(self.end + len(kinds), counts, _line(counts, self.end + len(kinds) - 1))

    def line_costs(self, kinds: Sequence[Form | None]) -> Callable[[int], int]:
        """``cost(k)``: the line's cost once the fold is extended over ``kinds[:k]``."""
        superseded, window, stale = self.counts
        prefix: list[Counts] = [self.counts]
        for kind in kinds:
            if kind is Form.SUPERSEDED or kind is Form.UNCHANGED:
                superseded += 1
            elif kind is Form.REFUSED:
                stale += 1
            elif kind is not None:
                window += 1
            prefix.append((superseded, window, stale))

        def cost(k: int) -> int:
            return self.cost if k == 0 else _line(prefix[k], self.end + k - 1).cost

        return cost


def _add(counts: Counts, kinds: Sequence[Form | None]) -> Counts:
    superseded, window, stale = counts
    for kind in kinds:
        if kind in (Form.SUPERSEDED, Form.UNCHANGED):
            superseded += 1
        elif kind is Form.REFUSED:
            stale += 1
        elif kind is not None:
            window += 1
    return superseded, window, stale


def _line(counts: Counts, last: int) -> Entry:
    text = collapse_line(*counts)
    return Entry(last, 0, COLLAPSED_KIND, Form.COLLAPSED, text, covers=sum(counts))
