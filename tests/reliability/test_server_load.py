"""The standing suite, server part 2 (issue 11): load on one real server over its pipes.

- ``CALLS`` ``harness.memory.list`` / ``harness.status`` calls, fifty in flight at a time,
  while a run reads, greps and writes every step: every call answered, correctly, none
  dropped; the run goes on meanwhile and stops when cancelled.
- ``RUNS`` runs back to back in one server: each finishes and is reported once, and the
  server's resident memory stays flat — its growth from the third run to the last stays
  under a generous structural bound (the peak is printed).

``HARNESS_SOAK=1`` (``make soak``) multiplies the counts by ten.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

from tests.e2e.lsp import busy_turns, server_env, settings
from tests.support import figures
from tests.support.fake_llm import FakeLLM
from tests.support.lsp_wire import WireServer, rss_kib

SOAK = os.environ.get("HARNESS_SOAK") == "1"
CALLS = 5000 if SOAK else 500
RUNS = 50 if SOAK else 10
IN_FLIGHT = 50
NOTES = 30
RSS_GROWTH_LIMIT_KIB = 64 * 1024  # from the third run to the last; a leak per run shows
RUN_S = 120.0


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("def add(a, b):\n    return a + b\n" * 50)
    return root


async def test_calls_during_a_run_are_all_answered(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    fake = fake_llm(busy_turns(4000))
    fake.delay_s = 0.02
    async with WireServer(server_env()) as server:
        await server.initialize(
            [workspace(tmp_path)], settings(fake, tmp_path / "store" / "harness.db")
        )
        for i in range(NOTES):
            await server.command("harness.memory.write", {"key": f"n{i}", "value": f"fact {i}"})
        run_id = (await server.command("harness.run", {"goal": "busy", "maxSteps": 4000}))["runId"]
        await server.wait_for(lambda: server.notifications("harness/budget"))

        answered, during = 0, 0
        for start in range(0, CALLS, IN_FLIGHT):
            names = [
                "harness.memory.list" if i % 2 else "harness.status"
                for i in range(start, start + IN_FLIGHT)
            ]
            answers = await asyncio.wait_for(
                asyncio.gather(*(server.command(name) for name in names)), RUN_S
            )
            for name, answer in zip(names, answers, strict=True):
                if name == "harness.memory.list":
                    assert len(answer) == NOTES
                else:
                    during += [r["runId"] for r in answer["runs"]] == [run_id]
                answered += 1
        steps = len(server.notifications("harness/budget"))
        assert await server.command("harness.cancel", {"runId": run_id}) == {"cancelled": True}
        finished = await server.wait_finished(run_id, within_s=RUN_S)

    print(
        f"load: {answered} calls answered, {during} status answers saw the run, "
        f"{steps} steps done meanwhile"
    )
    figures.record(
        "server load: status/memory.list calls during a run",
        calls_sent=CALLS,
        calls_answered=answered,
        dropped=CALLS - answered,
        in_flight=IN_FLIGHT,
        run_steps_meanwhile=steps,
    )
    assert answered == CALLS, "nothing dropped"
    assert during == CALLS // 2, "the run was in progress for every status call"
    assert steps >= 2 and finished["outcome"] == "cancelled"


async def test_runs_back_to_back_keep_memory_flat(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    fake = fake_llm([])
    rss: list[int] = []
    async with WireServer(server_env()) as server:
        await server.initialize(
            [workspace(tmp_path)], settings(fake, tmp_path / "store" / "harness.db")
        )
        for i in range(RUNS):
            fake.add_turns(*busy_turns(4, tag=f"r{i}-"), {"content": f"run {i} done"})
            run_id = (await server.command("harness.run", {"goal": f"run {i}"}))["runId"]
            finished = await server.wait_finished(run_id, within_s=RUN_S)
            assert finished["outcome"] == "finished" and finished["steps"] == 5
            rss.append(rss_kib(server.pid))
        runs = await server.command("harness.trace.runs", {"limit": RUNS + 5})
        reported = [f["runId"] for f in server.finished()]

    growth = rss[-1] - rss[2]
    print(
        f"load: {RUNS} runs back to back, RSS peak {max(rss) / 1024:.1f} MiB, from run 3 to "
        f"run {RUNS}: {growth / 1024:+.1f} MiB (samples, MiB: "
        f"{', '.join(f'{r / 1024:.1f}' for r in rss)})"
    )
    figures.record(
        "server load: runs back to back in one server",
        runs=RUNS,
        runs_finished=sum(r["outcome"] == "finished" for r in runs),
        reported_once=len(set(reported)),
        rss_peak_mib=round(max(rss) / 1024, 1),
        rss_growth_run3_to_last_mib=round(growth / 1024, 1),
    )
    assert len(runs) == RUNS and {r["outcome"] for r in runs} == {"finished"}
    assert len(reported) == len(set(reported)) == RUNS, "each run reported once"
    assert growth < RSS_GROWTH_LIMIT_KIB, f"RSS grew {growth} KiB from run 3 to run {RUNS}"
