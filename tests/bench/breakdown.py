"""Where a bounded session's cost goes (issue 21), as shares of the honest baseline's
prefix-cache-priced cost: per request, the characters shared with the request before are
cache reads (0.1); the rest is written (1.25) and sorted by what it is — new text (results
and model turns appended), headers (the head line of a re-read saying what it replaces or
that it is unchanged), the trailer, refresh entries (rule 3), and text re-sent after a
break (a slide or a memory block re-chosen: texts the request before already had, the texts
a slide rewrote — stubs, current copies — or the tail of the text where the two first
differ).

Run: ``.venv/bin/python -m tests.bench.breakdown refactor 20 [ceiling]``.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from harness.cli.demo.driver import DEMO, Scenario, ScenarioResult, bounded_budget, run_scenario
from harness.cli.demo.pricing import CACHE_READ, CACHE_WRITE
from harness.context import shared_prefix_chars
from harness.contract import ContextBudgetOverrides
from harness.store import Store

from .agent_sessions import AGENT
from .context_sessions import EXPLORATION, REFACTOR

REFRESHED = re.compile(r"\] \(refreshed at step [\d,]+: ")  # not a slide's current copy
SLID = re.compile(r"\(refreshed at step [\d,]+\)$|\(elided|elided\b")  # rewritten at a slide
HEADER = re.compile(r"\((replaces|unchanged since) ")  # a re-read's or re-query's head line
BUCKETS = (
    "cache reads",
    "new text",
    "headers",
    "trailer",
    "refresh entries",
    "re-sent after breaks",
)


@dataclass
class Breakdown:
    """Cache-priced cost units per bucket (characters × price)."""

    units: dict[str, float] = field(default_factory=lambda: dict.fromkeys(BUCKETS, 0.0))
    refresh_chars: int = 0
    refreshes: int = 0

    @property
    def total(self) -> float:
        return sum(self.units.values())


def breakdown(result: ScenarioResult) -> Breakdown:
    out = Breakdown()
    previous: list[str] = []
    for request in result.requests:
        texts = request.texts()
        shared = shared_prefix_chars(previous, texts)
        out.units["cache reads"] += shared * CACHE_READ
        seen, rest = set(previous), shared
        for i, text in enumerate(texts):
            if rest >= len(text):
                rest -= len(text)
                continue
            unshared = len(text) - rest
            if rest:  # the text where the two requests first differ
                out.units["re-sent after breaks"] += unshared * CACHE_WRITE
            elif i == len(texts) - 1 and text == request.trailer:
                out.units["trailer"] += unshared * CACHE_WRITE
            elif REFRESHED.search(text.split("\n", 1)[0]):
                out.units["refresh entries"] += unshared * CACHE_WRITE
                out.refresh_chars += unshared
                out.refreshes += 1
            elif text in seen or SLID.search(text.split("\n", 1)[0]):
                out.units["re-sent after breaks"] += unshared * CACHE_WRITE
            else:
                _new_text(out, text, unshared)
            rest = 0
        previous = texts
    return out


def _new_text(out: Breakdown, text: str, unshared: int) -> None:
    """New text, its head line counted apart when it says what the text replaces or that
    it is unchanged (rule 2's headers and pointers)."""
    head = text.split("\n", 1)[0]
    header = min(len(head), unshared) if HEADER.search(head) else 0
    out.units["headers"] += header * CACHE_WRITE
    out.units["new text"] += (unshared - header) * CACHE_WRITE


SESSIONS: dict[str, Scenario] = {
    "demo": DEMO,
    "exploration": EXPLORATION,
    "refactor": REFACTOR,
    "agent-like": AGENT,
}


async def compare(name: str, steps: int, ceiling: int) -> str:
    scenario = SESSIONS[name]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = Store(root / "b.db")
        base = await run_scenario(
            root / "n",
            store,
            steps=steps,
            naive=True,
            scenario=scenario,
            token_budget=bounded_budget(steps),  # the same trailer length as the bounded run's
        )
        budget = ContextBudgetOverrides(max_tokens=ceiling)
        bounded = await run_scenario(
            root / "b", store, steps=steps, naive=False, scenario=scenario, budget=budget
        )
    b, n = breakdown(bounded), breakdown(base)
    parts = [f"{name} {steps} @{ceiling // 1000}k: {b.total / n.total:.2f}× the baseline"]
    for bucket in BUCKETS:
        parts.append(
            f"{bucket} {b.units[bucket] / n.total:.2f} (baseline {n.units[bucket] / n.total:.2f})"
        )
    slides = sum(s.slid for s in bounded.steps)
    parts.append(f"{b.refreshes} refresh entries, {b.refresh_chars:,} chars; slides {slides}")
    return "; ".join(parts)


if __name__ == "__main__":
    name, steps = sys.argv[1], int(sys.argv[2])
    ceiling = int(sys.argv[3]) if len(sys.argv) > 3 else 24_000
    print(asyncio.run(compare(name, steps, ceiling)))
