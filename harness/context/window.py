"""Where the window slides to (§3 rule 5): the pure arithmetic of a slide.

Walking newest to oldest, entries stay in the window while they fit in the low-water
fill; the first that does not fit and everything older become stubs. When those stubs
together exceed an eighth of the observation budget, the whole turns among them fold into
one line (a turn is folded with all its answers or not at all, so every call left still
has its answer). If the result is still over the budget, the window gives up its oldest
entry until it fits: no request exceeds its ceiling.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate


@dataclass(frozen=True)
class Cut:
    """Indices into the region: before ``boundary`` older than the window; before
    ``folded`` folded into the one collapse line (``folded <= boundary``)."""

    boundary: int
    folded: int


def cut(
    inside: Sequence[int],
    outside: Sequence[int],
    groups: Sequence[int],
    *,
    walk_from: int,
    budget: int,
    fill: int,
    line: Callable[[int], int],
) -> Cut:
    """``inside[i]`` / ``outside[i]``: what item ``i`` costs in the window / as a stub;
    ``groups[i]``: the first item of its turn; ``walk_from``: the previous boundary (the
    window never reaches back past it); ``line(k)``: the cost of the collapse line folding
    the first ``k`` items (and whatever was folded before the region)."""
    n = len(inside)
    pre_in = [0, *accumulate(inside)]
    pre_out = [0, *accumulate(outside)]
    boundary, used = n, 0
    while boundary > walk_from and used + inside[boundary - 1] <= fill:
        boundary -= 1
        used += inside[boundary]
    while True:
        folded = 0
        if line(0) + pre_out[boundary] > budget // 8:
            folded = groups[boundary] if boundary < n else n
        total = line(folded) + pre_out[boundary] - pre_out[folded] + pre_in[n] - pre_in[boundary]
        if total <= budget:
            return Cut(boundary, folded)
        if boundary == n:
            return Cut(n, n)  # everything folded: the least a request can carry
        boundary += 1
