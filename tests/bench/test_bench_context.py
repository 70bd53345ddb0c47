"""Benchmarks for the context (issue 12; numbers in docs/MEASUREMENTS.md).

1. Three sessions through the real loop, tools, policy and store with a scripted model —
   the demo's read-heavy one, a long exploration and an edit-heavy refactor
   (``context_sessions.py``) — at 20 and 60 steps, each run in the same process against
   the honest baseline (every result appended, nothing already sent changed, the trailer
   last): raw characters, shared prefix, cache-priced cost, requests over the ceiling,
   refresh entries that re-sent unchanged text. (Issue 12 measured three placements of the
   correction side by side; since issue 21 it is always a refresh entry appended, §3 rule 3.)
2. Assembly per turn of the bounded engine at 2,000 observations (incremental: one
   turn's assemble + commit), against the naive engine on the same ledger in the same
   run. Durations are printed, never asserted.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest

from harness.cli.demo.driver import DEMO, Scenario, ScenarioResult, run_scenario
from harness.context import BoundedContext, NaiveContext, RefreshOutcome, RunFrame
from harness.ledger import Cause, Ledger
from harness.prompts import SYSTEM_PROMPT
from harness.store import Store
from harness.types import ReadSpan, ToolCall, ToolResult, content_hash

from .conftest import record
from .context_sessions import EXPLORATION, REFACTOR

SESSIONS = {
    "demo (read-heavy)": DEMO,
    "exploration": EXPLORATION,
    "refactor (edit-heavy)": REFACTOR,
}


def _figures(bounded: ScenarioResult, naive: ScenarioResult) -> dict[str, float]:
    return {
        "raw": bounded.total_chars / naive.total_chars,
        "cost": bounded.total_cost / naive.total_cost,
        "shared": bounded.shared_share,
    }


@pytest.mark.parametrize("steps", [20, 60])
@pytest.mark.parametrize("name", list(SESSIONS))
async def test_context_sessions_against_the_honest_baseline(
    tmp_path: Path, name: str, steps: int
) -> None:
    scenario: Scenario = SESSIONS[name]
    store = Store(tmp_path / "bench.db")
    naive = await run_scenario(tmp_path / "n", store, steps=steps, naive=True, scenario=scenario)
    bounded = await run_scenario(tmp_path / "b", store, steps=steps, naive=False, scenario=scenario)
    for run in (naive, bounded):
        assert run.outcome.ok and len(run.steps) == steps, (name, run.outcome)
    f = _figures(bounded, naive)
    record(
        "context_sessions",
        f"{name}, {steps} steps: shared/request chars bounded {f['shared']:.2f} "
        f"(baseline {naive.shared_share:.2f}); cache-priced cost bounded/baseline "
        f"{f['cost']:.3f} ({bounded.total_cost:,.0f} / {naive.total_cost:,.0f} tok-eq); raw "
        f"chars {f['raw']:.3f} ({bounded.total_chars:,} / {naive.total_chars:,}); over "
        f"ceiling {bounded.over_ceiling}; refreshes {sum(s.reread for s in bounded.steps)} "
        f"(unchanged text re-sent: {bounded.unchanged_rereads}); slides "
        f"{sum(s.slid for s in bounded.steps)}",
    )
    assert bounded.over_ceiling == 0, "no request over its ceiling"
    assert bounded.unchanged_rereads == 0, "no refresh re-sends the text the model held"


def _steps(n: int, size: int = 1_000) -> list[list[tuple[str, ToolResult | None]]]:
    """Reads over 50 files and greps over 20 patterns, a write every 10 observations; per
    step the model's turn (one call) and its result."""
    steps = []
    for i in range(n):
        if i % 3 == 0:
            body = f"grep hit {i} " + "g" * (size - 20)
            result = ToolResult("grep", f"p{i % 20}", f"[grep p{i % 20}]\n{body}")
        else:
            path = f"src/m{i % 50}.py"
            body = f"read {i} " + "r" * (size - 20)
            h = content_hash(body.encode())
            span = ReadSpan(path, None, None, h, h)
            result = ToolResult("read_file", path, f"[read {path}]\n{body}", read=span)
        steps.append([("call", result)] + ([("write", None)] if i % 10 == 9 else []))
    return steps


class _Clock:
    """Wall and CPU milliseconds of a block (CPU time shows the work when the machine is
    loaded by other processes)."""

    def __enter__(self) -> _Clock:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = (time.perf_counter() - self._wall) * 1000
        self.cpu = (time.process_time() - self._cpu) * 1000


def _stats(values: list[float]) -> str:
    ordered = sorted(values)
    return (
        f"median {statistics.median(ordered):.2f}, p90 {ordered[int(len(ordered) * 0.9)]:.2f}, "
        f"max {ordered[-1]:.2f}"
    )


def _drive(
    engine: BoundedContext | NaiveContext, ledger: Ledger, n: int
) -> list[tuple[int, _Clock, bool]]:
    body = "x" * 1_000

    def refresh(span: ReadSpan) -> RefreshOutcome:
        h = content_hash(body.encode())
        return RefreshOutcome(ok=True, text=body, content_hash=h, shown_hash=h)

    turns: list[tuple[int, _Clock, bool]] = []
    for i, actions in enumerate(_steps(n)):
        step = i + 1
        with _Clock() as clock:
            e = engine.assemble(
                step=step, effective_tokens=24_000, trailer=f"step {step}", refresh=refresh
            )
            engine.commit(e)
        turns.append((len(ledger), clock, "slide" in e.breaks))
        if not e.naive:
            assert e.section_chars <= 24_000 * 4
        for kind, result in actions:
            if kind == "call" and result is not None:
                call = ToolCall(f"c{step}", result.name, {"target": result.target})
                ledger.add_turn(step, "", (call,))
                ledger.add(step, result, call_id=call.id)
            else:
                path = f"src/m{i % 50}.py"
                ledger.note_change(path, Cause.WRITE, step, content_hash(f"v{i}".encode()))
    return turns


def test_assembly_per_turn_at_2000_observations() -> None:
    """Issue 12 target: ≤ 5 ms per turn at 2,000 observations."""
    n = 2_000
    results = {}
    for name, make in (("bounded", BoundedContext), ("naive", NaiveContext)):
        ledger = Ledger()
        engine = make(ledger, RunFrame(SYSTEM_PROMPT, "# Task\nbench"))
        turns = _drive(engine, ledger, n)
        tail = [c for size, c, slid in turns if size >= 2 * (n - 100) and not slid]
        slides = [c for _, c, slid in turns if slid]
        results[name] = (tail, slides, len(ledger))
    (b_tail, b_slides, size), (n_tail, _, _) = results["bounded"], results["naive"]
    record(
        "context_assembly",
        f"{n:,} results + their model turns ({size:,} ledger items with the re-reads), ms "
        f"wall / CPU per turn, last 100 turns: bounded {_stats([c.wall for c in b_tail])} / "
        f"{_stats([c.cpu for c in b_tail])}; {len(b_slides)} slide turns "
        f"{_stats([c.wall for c in b_slides]) if b_slides else '-'}; naive (the baseline, "
        f"same ledger shape) {_stats([c.wall for c in n_tail])} / {_stats([c.cpu for c in n_tail])}",
    )
