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
from typing import Any

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


def test_engine_assembly_cost_per_turn_vs_today() -> None:
    """Issue 12: assembly per turn at 2,000 observations, the new engine (incremental: one
    turn's work, assemble + commit) and today's ``assemble`` (the whole ledger every turn)
    on the same ledger in the same run. Durations are printed, never asserted."""
    from harness.context import BoundedContext, RefreshOutcome, RunFrame
    from harness.types import ToolCall

    n = 2_000
    body = "x" * 1_000

    def refresh(span: ReadSpan) -> RefreshOutcome:
        return RefreshOutcome(ok=True, text=body, content_hash=content_hash(body.encode()))

    ledger = Ledger()
    engine = BoundedContext(ledger, RunFrame(SYSTEM_PROMPT, "# Task\nbench"))
    turns: list[tuple[int, _Clock, bool]] = []
    for i, actions in enumerate(_turns_ledger_steps(n)):
        step = i + 1
        with _Clock() as clock:
            e = engine.assemble(
                step=step, effective_tokens=24_000, trailer=f"step {step}", refresh=refresh
            )
            engine.commit(e)
        turns.append((len(ledger), clock, "slide" in e.breaks))
        assert e.section_chars <= 24_000 * 4
        for kind, result in actions:
            if kind == "call" and result is not None:
                call = ToolCall(f"c{step}", result.name, {"target": result.target})
                ledger.add_turn(step, "", (call,))
                ledger.add(step, result, call_id=call.id)
            else:
                path = f"src/m{i % 50}.py"
                ledger.note_change(path, Cause.WRITE, step, content_hash(f"v{i}".encode()))
    tail = [c for size, c, slid in turns if size >= 2 * (n - 100) and not slid]
    slides = [c for _, c, slid in turns if slid]
    with _Clock() as cold:
        BoundedContext(ledger, RunFrame(SYSTEM_PROMPT, "# Task\nbench")).assemble(
            step=n + 1, effective_tokens=24_000, trailer="t", refresh=refresh
        )
    today = []
    for _ in range(15):
        with _Clock() as clock:
            assemble(
                ledger,
                step=n + 1,
                effective_tokens=24_000,
                entry_cap_chars=entry_cap_chars(24_000),
                memory_block="",
                refresh=refresh,
            )
        today.append(clock)
    record(
        "context_engine",
        f"{n:,} observations + {len(ledger) - n:,} model turns, ms wall / CPU: engine per turn "
        f"(last 100 turns, no slide) {_stats([c.wall for c in tail])} / "
        f"{_stats([c.cpu for c in tail])}; {len(slides)} slide turns "
        f"{_stats([c.wall for c in slides])} / {_stats([c.cpu for c in slides])}; cold first "
        f"assembly of the whole ledger {cold.wall:.1f} / {cold.cpu:.1f}; today's assemble "
        f"{_stats([c.wall for c in today])} / {_stats([c.cpu for c in today])}",
    )


def _module(name: str, version: int = 0) -> str:
    """A ~7 KB module with numbered sections (like the demo's generated ones)."""
    lines = [f'"""The {name} module."""', ""]
    for section in range(1, 41):
        lines += [f"# section {section}", f"def {name}_{section}(x):", f"    return x + {section}"]
        lines += [f"    # {name} {section} v{version} " + "." * 100]
    return "\n".join(lines)


def _simulated_run(steps: int, *, naive: bool, wire: Any) -> list[Any]:
    """An engine-only imitation of the demo's cycle (read two modules, edit one, test,
    grep, re-read), with the effective budget shrinking as the run spends: the requests
    the engine would send. Not the demo itself (phase 2 runs that through the loop)."""
    from harness.context import Wire
    from harness.contract import ContextBudget, effective_tokens
    from tests.support.context_run import Session, grep

    names = ["lexer", "parser", "ast", "evaluator"]
    s = Session(
        naive=naive,
        wire=Wire(wire),
        files={f"src/{n}.py": _module(n) for n in names},
        memory="## Your notes\n- test-command: python3 -m unittest",
        max_steps=steps,
    )
    spent = 0
    for k in range(steps):
        effective = effective_tokens(ContextBudget(), 2_000_000, spent)
        e = s.send(effective)
        spent += e.est_tokens + 150
        a, b, c = (f"src/{names[(k + j) % 4]}.py" for j in range(3))
        phase = k % 3
        if phase == 0:
            s.act(s.disk.read(a), s.disk.read(b), words=f"Reviewing {a} and {b}.")
            text = s.disk.files[a].replace(f"# section {k // 3 + 1}\n", f"# s{k // 3 + 1} ok\n")
            s.write(a, text)
            s.act(ToolResult("edit_file", a, f"[edit {a}] replaced 1 line with 1 line"))
        elif phase == 1:
            s.act(s.disk.read(c), ToolResult("exec", "tests", "[exec tests]\nexit 0\n" + "." * 400))
        else:
            s.act(s.disk.read(a, 1 + k, 30), grep("ok", f"{a}:1: ok\n" * (1 + k % 7)))
    return s.sent


@pytest.mark.parametrize("steps", [20, 60])
def test_engine_cache_economics_vs_the_honest_baseline(steps: int) -> None:
    """Raw chars, shared prefix and cache-priced cost (shared × 0.1 + rest × 1.25) of the
    bounded engine against the honest append-only baseline, both wires, same run."""
    for wire in ("transcript", "flat"):
        runs = {naive: _simulated_run(steps, naive=naive, wire=wire) for naive in (False, True)}
        figures = {}
        for naive, sent in runs.items():
            chars = [sum(map(len, e.texts)) for e in sent]
            shared = [e.prefix_chars for e in sent]
            cost = sum(p * 0.1 + (c - p) * 1.25 for c, p in zip(chars, shared, strict=True))
            slides = sum(1 for e in sent if "slide" in e.breaks)
            figures[naive] = (sum(chars), sum(shared) / sum(chars), cost, slides)
            assert all(e.section_chars <= e.effective * 4 for e in sent) or naive
        bounded, naive_f = figures[False], figures[True]
        record(
            "context_cache",
            f"{steps} steps, {wire}: raw chars bounded/baseline {bounded[0] / naive_f[0]:.3f} "
            f"({bounded[0]:,} / {naive_f[0]:,}); shared prefix / request chars bounded "
            f"{bounded[1]:.2f}, baseline {naive_f[1]:.2f}; cache-priced cost bounded/baseline "
            f"{bounded[2] / naive_f[2]:.3f}; slides {bounded[3]}",
        )
