"""Benchmarks for context assembly (issue 3; numbers in docs/MEASUREMENTS.md).

1. Wire size, bounded vs naive, same scripted session, same run of the real loop, tools,
   policy and store: total request characters at 20 and 60 steps over four ~7 KB modules.
2. Assembly cost per turn for ledgers of 200 … 2,000 observations of 1,000 chars, to show
   the curve is linear. Durations are printed, never asserted.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest

from harness.context import assemble
from harness.contract import entry_cap_chars
from harness.demo.driver import run_scenario
from harness.ledger import Cause, Ledger
from harness.prompts import SYSTEM_PROMPT
from harness.store import Store
from harness.types import ReadSpan, ToolResult, content_hash

from .conftest import record

BIG_BUDGET = 10**10  # both runs complete every step; only the context rule differs


@pytest.mark.parametrize(("steps", "target"), [(20, 0.35), (60, 0.15)])
async def test_bounded_vs_naive_wire_size(tmp_path: Path, steps: int, target: float) -> None:
    store = Store(tmp_path / "bench.db")
    bounded = await run_scenario(
        tmp_path / "b", store, steps=steps, naive=False, token_budget=BIG_BUDGET
    )
    naive = await run_scenario(
        tmp_path / "n", store, steps=steps, naive=True, token_budget=BIG_BUDGET
    )
    assert len(bounded.steps) == len(naive.steps) == steps
    ratio = bounded.total_chars / naive.total_chars
    over = 0
    for stat, user in zip(bounded.steps, bounded.requests, strict=True):
        section = user[user.index("# Observations") :] if "# Observations" in user else ""
        limit = stat.ceiling * 4
        over = max(over, len(section) - limit)
        assert len(section) <= limit + limit // 8, f"step {stat.step} over its ceiling"
    record(
        "context_wire",
        f"{steps} steps: bounded {bounded.total_chars:,} chars (~{bounded.total_tokens:,} tok) "
        f"vs naive {naive.total_chars:,} chars (~{naive.total_tokens:,} tok); "
        f"ratio {ratio:.3f} (target <= {target}); largest bounded section vs ceiling: "
        f"{over:+,} chars; system prompt {len(SYSTEM_PROMPT):,} chars in both",
    )
    assert ratio <= target


def _ledger(n: int, size: int = 1_000) -> Ledger:
    """Reads over 50 files, greps over 20 patterns, and a write every 10 observations."""
    ledger = Ledger()
    for i in range(n):
        step = i // 2 + 1
        if i % 3 == 0:
            body = f"grep hit {i} " + "g" * (size - 20)
            ledger.add(step, ToolResult("grep", f"p{i % 20}", f"[grep p{i % 20}]\n{body}"))
        else:
            path = f"src/m{i % 50}.py"
            body = f"read {i} " + "r" * (size - 20)
            span = ReadSpan(path, None, None, content_hash(body.encode()))
            ledger.add(step, ToolResult("read_file", path, f"[read {path}]\n{body}", read=span))
        if i % 10 == 9:
            path = f"src/m{i % 50}.py"
            ledger.note_change(path, Cause.WRITE, step, content_hash(f"v{i}".encode()))
    return ledger


@pytest.mark.parametrize("n", [200, 500, 1_000, 2_000])
def test_assembly_cost_per_turn(n: int) -> None:
    from harness.context import RefreshOutcome

    ledger = _ledger(n)
    body = "x" * 1_000

    def refresh(span: ReadSpan) -> RefreshOutcome:
        return RefreshOutcome(ok=True, text=body, content_hash=content_hash(body.encode()))

    times = []
    for _ in range(15):
        t0 = time.perf_counter()
        out = assemble(
            ledger,
            step=n,
            effective_tokens=24_000,
            entry_cap_chars=entry_cap_chars(24_000),
            memory_block="",
            refresh=refresh,
        )
        times.append((time.perf_counter() - t0) * 1000)
    assert out.carried + out.stubbed == n
    assert len(out.section) <= 24_000 * 4 * 9 // 8
    median = statistics.median(times)
    record(
        "context_assembly",
        f"{n:>5} observations: median {median:.2f} ms, "
        f"p90 {sorted(times)[int(len(times) * 0.9)]:.2f} ms, per observation "
        f"{median * 1000 / n:.1f} µs (carried {out.carried}, stubbed {out.stubbed})",
    )


def _turns_ledger_steps(n: int, size: int = 1_000) -> list[list[tuple[str, ToolResult | None]]]:
    """The same mix as ``_ledger`` as a run: per step the model's turn (one call) and its
    result; a write every 10 observations."""
    steps = []
    for i in range(n):
        if i % 3 == 0:
            body = f"grep hit {i} " + "g" * (size - 20)
            result = ToolResult("grep", f"p{i % 20}", f"[grep p{i % 20}]\n{body}")
        else:
            path = f"src/m{i % 50}.py"
            body = f"read {i} " + "r" * (size - 20)
            span = ReadSpan(path, None, None, content_hash(body.encode()))
            result = ToolResult("read_file", path, f"[read {path}]\n{body}", read=span)
        steps.append([("call", result)] + ([("write", None)] if i % 10 == 9 else []))
    return steps


def test_engine_assembly_cost_per_turn_vs_today() -> None:
    """Issue 12: assembly per turn at 2,000 observations, the new engine (incremental: one
    turn's work) and today's ``assemble`` (the whole ledger every turn) on the same ledger
    in the same run. Durations are printed, never asserted."""
    from harness.context import BoundedContext, RefreshOutcome, RunFrame
    from harness.types import ToolCall

    n = 2_000
    body = "x" * 1_000

    def refresh(span: ReadSpan) -> RefreshOutcome:
        return RefreshOutcome(ok=True, text=body, content_hash=content_hash(body.encode()))

    ledger = Ledger()
    engine = BoundedContext(ledger, RunFrame(SYSTEM_PROMPT, "# Task\nbench"))
    per_turn: list[tuple[int, float, bool]] = []
    for i, actions in enumerate(_turns_ledger_steps(n)):
        step = i + 1
        t0 = time.perf_counter()
        e = engine.assemble(
            step=step, effective_tokens=24_000, trailer=f"step {step}", refresh=refresh
        )
        engine.commit(e)
        per_turn.append((len(ledger), (time.perf_counter() - t0) * 1000, "slide" in e.breaks))
        assert e.section_chars <= 24_000 * 4
        for kind, result in actions:
            if kind == "call" and result is not None:
                call = ToolCall(f"c{step}", result.name, {"target": result.target})
                ledger.add_turn(step, "", (call,))
                ledger.add(step, result, call_id=call.id)
            else:
                path = f"src/m{i % 50}.py"
                ledger.note_change(path, Cause.WRITE, step, content_hash(f"v{i}".encode()))
    tail = [ms for size, ms, _ in per_turn if size >= 2 * (n - 100)]
    slides = [ms for _, ms, slid in per_turn if slid]
    observations = sum(1 for o in ledger.observations() if o.kind != "message")
    cold_engine = BoundedContext(ledger, RunFrame(SYSTEM_PROMPT, "# Task\nbench"))
    t0 = time.perf_counter()
    cold = cold_engine.assemble(step=n + 1, effective_tokens=24_000, trailer="t", refresh=refresh)
    cold_ms = (time.perf_counter() - t0) * 1000
    today = []
    for _ in range(15):
        t0 = time.perf_counter()
        assemble(
            ledger,
            step=n + 1,
            effective_tokens=24_000,
            entry_cap_chars=entry_cap_chars(24_000),
            memory_block="",
            refresh=refresh,
        )
        today.append((time.perf_counter() - t0) * 1000)
    assert cold.section_chars <= 24_000 * 4 and observations == n
    record(
        "context_engine",
        f"{observations:,} observations + {len(ledger) - observations:,} model turns: engine per "
        f"turn (last 100 turns) median {statistics.median(tail):.2f} ms, p90 "
        f"{sorted(tail)[int(len(tail) * 0.9)]:.2f} ms, max {max(tail):.2f} ms; "
        f"{len(slides)} slides in {n} turns, slowest {max(slides):.2f} ms; cold first "
        f"assembly of the whole ledger {cold_ms:.2f} ms; today's assemble on the same ledger "
        f"median {statistics.median(today):.2f} ms",
    )
