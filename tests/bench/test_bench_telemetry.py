"""What exporting runs over OpenTelemetry costs a run (issue 25, §12; run: ``make bench``).

A 100-step scripted run (each step reads a file and lists a folder: 2 tool calls, so
1 + 100 + 200 spans) with no export, with a live OTLP/HTTP receiver on 127.0.0.1, with a
closed port and with a receiver that never answers. Two measures:

1. In process: ``Session.execute`` of the run, the arms alternating, median of ``ROUNDS``;
   the export's shutdown (the flush, bounded) timed on its own.
2. The real CLI (``harness run --provider scripted``) in a subprocess, start to exit —
   what a user waits for, the SDK's import and the bounded flush included — median of
   ``CLI_ROUNDS``.

Target: ≤ 5 % wall time for the run. Numbers are printed; only their structure is asserted.
"""

from __future__ import annotations

import asyncio
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness.cli.approve import default_approver
from harness.contract import ContractOverrides
from harness.provider import ProviderConfig
from harness.run.session import Backend, RunRequest, build_contract, open_session
from harness.store import Store
from harness.telemetry.config import TelemetryConfig
from harness.telemetry.export import Telemetry
from tests.bench.conftest import record
from tests.e2e.cli import env as cli_env
from tests.support.otlp_receiver import OtlpReceiver, closed_port

STEPS = 100
ROUNDS = 7
CLI_ROUNDS = 5


def workspace(root: Path) -> Path:
    ws = root / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / ".git").mkdir()
    for i in range(10):
        (ws / "src" / f"mod{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n" * 20)
    return ws


def script(path: Path) -> Path:
    turns: list[dict[str, Any]] = [
        {
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": f"src/mod{i % 10}.py"}},
                {"name": "list_dir", "arguments": {"path": "src"}},
            ]
        }
        for i in range(STEPS - 1)
    ]
    turns.append({"content": "done"})
    path.write_text(json.dumps({"turns": turns}))
    return path


async def one_run(
    ws: Path, turns: Path, store: Store, telemetry: Telemetry | None
) -> tuple[float, float]:
    """The run's wall time and the CPU time of the whole process meanwhile (the export's
    thread included: on a loaded machine that is the steadier measure)."""
    contract = build_contract("Bench", ws, ContractOverrides(max_steps=STEPS + 1))
    session = await open_session(
        contract,
        Backend(
            store=store,
            provider=ProviderConfig(name="scripted", script=str(turns)),
            memory=False,
            telemetry=telemetry,
        ),
        RunRequest(approver=default_approver(yes=True, interactive=False)),
    )
    started, cpu = time.perf_counter(), time.process_time()
    result = await session.execute()
    took, cpu = time.perf_counter() - started, time.process_time() - cpu
    assert result.end.steps == STEPS and result.end.outcome.value == "finished"
    return took, cpu


@pytest.mark.timeout(1800)
def test_export_overhead_of_a_100_step_run(tmp_path: Path) -> None:
    ws, turns = workspace(tmp_path), script(tmp_path / "turns.json")
    with OtlpReceiver() as live, OtlpReceiver(hang=True) as hung:
        arms = {
            "no export": None,
            "live receiver": live.url,
            "closed port": f"http://127.0.0.1:{closed_port()}",
            "hung receiver": hung.url,
        }
        times: dict[str, list[tuple[float, float]]] = {arm: [] for arm in arms}
        flushes: dict[str, list[float]] = {arm: [] for arm in arms}
        store = Store(tmp_path / "s.db")
        try:
            asyncio.run(one_run(ws, turns, store, None))  # warm: imports, caches
            for _ in range(ROUNDS):
                for arm, url in arms.items():
                    exporting = (
                        Telemetry.start(TelemetryConfig(f"{url}/v1/traces")) if url else None
                    )
                    times[arm].append(asyncio.run(one_run(ws, turns, store, exporting)))
                    if exporting is not None:
                        started = time.perf_counter()
                        stats = exporting.shutdown()
                        flushes[arm].append(time.perf_counter() - started)
                        assert stats.ended == 1 + STEPS + 2 * (STEPS - 1)
        finally:
            store.close()
        assert len(live.spans) == ROUNDS * (1 + STEPS + 2 * (STEPS - 1))
    wall = statistics.median(t for t, _ in times["no export"])
    cpu = statistics.median(c for _, c in times["no export"])
    record("telemetry", f"in process, {STEPS}-step scripted run, median of {ROUNDS}:")
    for arm in arms:
        w = statistics.median(t for t, _ in times[arm])
        c = statistics.median(c for _, c in times[arm])
        flush = flushes[arm] and f", shutdown {statistics.median(flushes[arm]) * 1000:.0f} ms"
        record(
            "telemetry",
            f"  {arm:>14}: wall {w * 1000:5.0f} ms ({(w / wall - 1) * 100:+5.1f} %), "
            f"cpu {c * 1000:5.0f} ms ({(c / cpu - 1) * 100:+5.1f} %){flush or ''}",
        )


@pytest.mark.timeout(1800)
def test_export_overhead_through_the_cli(tmp_path: Path) -> None:
    ws, turns = workspace(tmp_path), script(tmp_path / "turns.json")
    config = tmp_path / "config"
    (config / "harness").mkdir(parents=True)

    def cli(n: int, endpoint: str | None) -> tuple[float, float]:
        """Wall time, and the CPU time the process used (all its threads)."""
        extra = {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint} if endpoint else {}
        argv = [sys.executable, "-m", "harness", "run", "Bench", "-w", str(ws), "--script",
                str(turns), "--store", str(tmp_path / f"s{n}.db"), "--max-steps",
                str(STEPS + 1), "--no-memory", "--json"]  # fmt: skip
        environ = cli_env(XDG_CONFIG_HOME=str(config), **extra)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=environ, timeout=300)
        took = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["steps"] == STEPS
        return took, cpu

    with OtlpReceiver() as live, OtlpReceiver(hang=True) as hung:
        arms = {
            "no export": None,
            "live receiver": live.url,
            "closed port": f"http://127.0.0.1:{closed_port()}",
            "hung receiver": hung.url,
        }
        times: dict[str, list[tuple[float, float]]] = {arm: [] for arm in arms}
        n = 0
        for _ in range(CLI_ROUNDS):
            for arm, url in arms.items():
                n += 1
                times[arm].append(cli(n, url))
        assert len(live.spans) == CLI_ROUNDS * (1 + STEPS + 2 * (STEPS - 1))
    wall = statistics.median(t for t, _ in times["no export"])
    cpu = statistics.median(c for _, c in times["no export"])
    record("telemetry", f"the CLI, start to exit, median of {CLI_ROUNDS}:")
    for arm in arms:
        w = statistics.median(t for t, _ in times[arm])
        c = statistics.median(c for _, c in times[arm])
        record(
            "telemetry",
            f"  {arm:>14}: wall {w * 1000:5.0f} ms ({(w / wall - 1) * 100:+5.1f} %, "
            f"{(w - wall) * 1000:+5.0f} ms), cpu {c * 1000:5.0f} ms "
            f"({(c / cpu - 1) * 100:+5.1f} %, {(c - cpu) * 1000:+4.0f} ms)",
        )
