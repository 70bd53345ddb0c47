"""The figures a context benchmark prints for one session (issue 21; docs/MEASUREMENTS.md):
the bounded run and the honest baseline (every result appended, nothing already sent
changed, the trailer last) over the same scripted turns, priced two ways.

- **Prefix** (an OpenAI-style automatic prefix cache, ideal): each request's characters
  shared from the start with the request before are cache reads (0.1), the rest is written
  (1.25) — ``harness.cli.demo.pricing``, what ``harness demo`` prints.
- **Anthropic**: each request rendered on the Anthropic wire exactly as the provider sends it
  (``harness.provider.anthropic.request_body``, breakpoints included) and priced by the fake
  server's cache, which follows Anthropic's documented rules (tests/support/fake_cache.py:
  4 breakpoints, the 20-block lookback, 1,024-token minimum): input 1.0, cache writes 1.25,
  cache reads 0.1. ``two`` prices the placement main shipped before issue 21 (the system
  block and the last block before the trailer); ``placed`` the lookback-aware placement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.cli.demo.driver import ScenarioResult
from harness.cli.demo.pricing import CACHE_READ, CACHE_WRITE, INPUT
from harness.provider.anthropic import request_body
from harness.provider.breakpoints import MarkedPrefixes
from harness.types import Request
from tests.support.fake_cache import AnthropicBreakpointCache


def anthropic_cost(requests: Sequence[Request], *, placed: bool) -> float:
    """Input-token equivalents the requests cost under Anthropic's caching rules."""
    cache = AnthropicBreakpointCache()
    marked = MarkedPrefixes() if placed else None
    total = 0.0
    for request in requests:
        body = request_body(request, model="m", max_tokens=1, stream=False, marked=marked)
        fresh, read, write = cache.process(body)
        total += fresh * INPUT + read * CACHE_READ + write * CACHE_WRITE
    return total


@dataclass(frozen=True)
class Figures:
    """One bounded run against the baseline over the same turns."""

    steps: int
    growth: float  # the baseline's characters added per step
    peak: int  # the baseline's largest request, characters
    raw: float  # characters sent, bounded / baseline
    prefix: float  # prefix-cache-priced cost, bounded / baseline
    anthropic_two: float  # Anthropic-priced, system + last breakpoints only
    anthropic: float  # Anthropic-priced, lookback-aware breakpoints
    bounded_prefix_cost: float
    baseline_prefix_cost: float
    bounded_anthropic_cost: float
    baseline_anthropic_cost: float
    over_ceiling: int
    slides: int

    def line(self) -> str:
        return (
            f"{self.steps} steps, baseline +{self.growth:,.0f} chars/step, peak "
            f"{self.peak:,}; chars {self.raw:.2f}; prefix-priced {self.prefix:.2f} "
            f"({self.bounded_prefix_cost:,.0f} / {self.baseline_prefix_cost:,.0f}); "
            f"Anthropic {self.anthropic:.2f} ({self.bounded_anthropic_cost:,.0f} / "
            f"{self.baseline_anthropic_cost:,.0f}; two breakpoints {self.anthropic_two:.2f}); "
            f"over ceiling {self.over_ceiling}; slides {self.slides}"
        )


def figures(bounded: ScenarioResult, baseline: ScenarioResult) -> Figures:
    sizes = [s.request_chars for s in baseline.steps]
    growth = (sizes[-1] - sizes[0]) / max(1, len(sizes) - 1)
    base_anthropic = anthropic_cost(baseline.requests, placed=True)
    bounded_anthropic = anthropic_cost(bounded.requests, placed=True)
    return Figures(
        steps=len(bounded.steps),
        growth=growth,
        peak=max(sizes),
        raw=bounded.total_chars / baseline.total_chars,
        prefix=bounded.total_cost / baseline.total_cost,
        anthropic_two=anthropic_cost(bounded.requests, placed=False) / base_anthropic,
        anthropic=bounded_anthropic / base_anthropic,
        bounded_prefix_cost=bounded.total_cost,
        baseline_prefix_cost=baseline.total_cost,
        bounded_anthropic_cost=bounded_anthropic,
        baseline_anthropic_cost=base_anthropic,
        over_ceiling=bounded.over_ceiling,
        slides=sum(s.slid for s in bounded.steps),
    )
