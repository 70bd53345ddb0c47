"""Every benchmark session against the honest baseline (issue 21; numbers in
docs/MEASUREMENTS.md): the demo's, the exploration and the refactor (issue 12), the
agent-like session (``agent_sessions.py``) at 20, 60 and 150 steps, and two public SWE-agent
trajectories replayed (``replay.py``). Each runs through the real loop, tools, policy and
store with a scripted model, bounded at the shipped 24k ceiling and at 8k, and as the
baseline; ``measure.py`` prices each both ways (prefix cache, Anthropic's rules). The
trajectories also run through the real CLI (``harness run --provider scripted --script``),
which must send what the in-process run sent. Figures are printed, not asserted — except
that no request exceeds its ceiling and every replayed call succeeds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.cli.demo.driver import DEMO, Scenario, bounded_budget, run_scenario
from harness.contract import ContextBudgetOverrides
from harness.store import Store
from tests.support.workspace import write_files

from .agent_sessions import AGENT
from .conftest import record
from .context_sessions import EXPLORATION, REFACTOR
from .measure import Figures, figures
from .replay import TRAJECTORIES, convert

CEILINGS = (24_000, 8_000)
REPLAY_VERIFY = ("python3", "-c", "pass")


def _replayed(name: str) -> tuple[Scenario, int]:
    turns, files, _ = convert(name)
    create: Callable[[Path], object] = lambda root: write_files(root, files)  # noqa: E731
    goal = f"Resolve SWE-bench {name} (replayed from a public SWE-agent trajectory)."
    return Scenario(goal, create, lambda _: turns, REPLAY_VERIFY), len(turns)


def _cases() -> list[Any]:
    named: list[tuple[str, Scenario, int]] = []
    for steps in (20, 60):
        named += [("demo", DEMO, steps), ("exploration", EXPLORATION, steps)]
        named += [("refactor", REFACTOR, steps)]
    named += [("agent-like", AGENT, steps) for steps in (20, 60, 150)]
    cases = [pytest.param(s, n, id=f"{name}-{n}") for name, s, n in named]
    for name in TRAJECTORIES:
        cases.append(pytest.param(name, 0, id=name))
    return cases


RESULTS: dict[tuple[str, int, int], Figures] = {}  # (session, steps, ceiling)


@pytest.mark.timeout(1800)  # three runs of up to 150 steps, each with the tests run
@pytest.mark.parametrize(("session", "steps"), _cases())
async def test_session_against_the_honest_baseline(
    tmp_path: Path, session: Scenario | str, steps: int
) -> None:
    label = session if isinstance(session, str) else _label(session)
    scenario, steps = _replayed(session) if isinstance(session, str) else (session, steps)
    store = Store(tmp_path / "bench.db")
    # The baseline gets the bounded run's token budget, so its trailer ("… of 2,000,000
    # tokens spent") is as long as the bounded run's: the default baseline budget (10**10)
    # wrote 5 more characters into every request, 0.13 % of agent-like 60's cost.
    baseline = await run_scenario(
        tmp_path / "n",
        store,
        steps=steps,
        naive=True,
        scenario=scenario,
        token_budget=bounded_budget(steps),
    )
    assert len(baseline.steps) == steps, baseline.outcome
    for ceiling in CEILINGS:
        bounded = await run_scenario(
            tmp_path / str(ceiling),
            store,
            steps=steps,
            naive=False,
            scenario=scenario,
            budget=ContextBudgetOverrides(max_tokens=ceiling),
        )
        assert len(bounded.steps) == steps, bounded.outcome
        f = figures(bounded, baseline)
        RESULTS[(label, steps, ceiling)] = f
        record("sessions", f"{label} @{ceiling // 1000}k: {f.line()}")
        assert f.over_ceiling == 0, "no request over its ceiling"


def _label(scenario: Scenario) -> str:
    return {id(DEMO): "demo", id(EXPLORATION): "exploration", id(REFACTOR): "refactor"}.get(
        id(scenario), "agent-like"
    )


def test_sessions_summary() -> None:
    """Totals over the real-like sessions (agent-like and replayed), per ceiling — costs
    summed over sessions, then divided, as the issue's "in total" — the worst session, and
    the long ones (≥ 120 steps)."""
    if not RESULTS:
        pytest.skip("run with the session benchmarks")
    real = {k: f for k, f in RESULTS.items() if k[0] not in ("demo", "exploration", "refactor")}
    for ceiling in CEILINGS:
        rows = [f for (_, _, c), f in real.items() if c == ceiling]
        long = [f for f in rows if f.steps >= 120]
        if rows:
            record("sessions", f"real-like @{ceiling // 1000}k, {len(rows)} runs: {_total(rows)}")
        if long:
            record("sessions", f"long (≥ 120 steps) @{ceiling // 1000}k: {_total(long)}")


def _total(rows: list[Figures]) -> str:
    def ratio(bounded: str, baseline: str) -> float:
        return sum(getattr(f, bounded) for f in rows) / sum(getattr(f, baseline) for f in rows)

    prefix = ratio("bounded_prefix_cost", "baseline_prefix_cost")
    anthropic = ratio("bounded_anthropic_cost", "baseline_anthropic_cost")
    two = sum(f.anthropic_two * f.baseline_anthropic_cost for f in rows) / sum(
        f.baseline_anthropic_cost for f in rows
    )
    return (
        f"prefix-priced {prefix:.2f} (worst {max(f.prefix for f in rows):.2f}); Anthropic "
        f"{anthropic:.2f} (worst {max(f.anthropic for f in rows):.2f}; two breakpoints "
        f"{two:.2f}, worst {max(f.anthropic_two for f in rows):.2f})"
    )


# -- the trajectories through the real CLI -----------------------------------------------


def _cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "harness", *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", TRAJECTORIES)
async def test_a_replayed_trajectory_runs_through_the_cli(tmp_path: Path, name: str) -> None:
    scenario, steps = _replayed(name)
    turns, _, missing = convert(name)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"model": "scripted", "turns": turns}))
    workspace = tmp_path / "ws"
    scenario.create(workspace)
    store = tmp_path / "cli.db"
    done = _cli(
        "run", scenario.goal, "-w", workspace, "--provider", "scripted", "--script", script,
        "--store", store, "--json", "--yes", "--max-steps", str(steps),
        "--verify", " ".join(REPLAY_VERIFY),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)
    assert (run["outcome"], run["steps"]) == ("success", steps)
    shown = json.loads(_cli("trace", "show", str(run["runId"]), "--store", store, "--json").stdout)
    assert sum(s["failed"] + s["refused"] for s in shown["steps"]) == 0, "every call succeeded"
    cli_tokens = [s["estTokens"] for s in shown["steps"]]
    here = await run_scenario(
        tmp_path / "here", Store(tmp_path / "here.db"), steps=steps, naive=False,
        scenario=scenario,
    )  # fmt: skip
    assert cli_tokens == [s.est_tokens for s in here.steps], "the CLI sent what the bench measures"
    record("trajectories", f"{name}: {steps} steps through the CLI; not rebuilt: {missing}")
