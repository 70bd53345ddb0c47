"""Every provider fault kind, injected at a random step of a whole run (fixed seed), ends in a
classified outcome in bounded time with bounded memory (issue 11, the standing suite):
retryable faults are retried and the run finishes; the others end it with the outcome their
kind says. Each fault is in ``provider_calls`` at the step it hit, with its kind.

The faults the CLI can meet in seconds run through a real ``harness run`` process, its peak
RSS (``VmHWM``) sampled; the two that need a short attempt deadline or a host's cancel — a
slow loris (``timeout``) and a cancel during a hung call (``cancelled``) — run the same loop
in this process (``open_session``, a real store and the real HTTP fake), RSS sampled too.
``HARNESS_SOAK=1`` injects each fault at every step instead of one random step."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from harness.errors import FailureKind
from harness.policy import Policy, YesApprover
from harness.provider import RetryPolicy, Timeouts
from harness.run.session import Backend, RunRequest, build_contract, open_session
from harness.store import Store
from harness.types import Outcome
from tests.conftest import MakeFakeLLM
from tests.support import figures
from tests.support.fake_llm import FakeLLM, Fault
from tests.support.workspace import PARSER_PY, make_workspace

SOAK = os.environ.get("HARNESS_SOAK") == "1"
SEED = 20_261_201
AREA = "provider faults at random steps of a full run"
KEY = "sk-faults-in-runs-0123456789abcdef"
TURNS = [
    {"tool_calls": [{"name": "read_file", "arguments": {"path": "parser.py"}}]},
    {"tool_calls": [{"name": "grep", "arguments": {"pattern": "def", "path_glob": "*.py"}}]},
    {"tool_calls": [{"name": "list_dir", "arguments": {}}]},
    {"content": "Done."},
]
PEAK_RSS_BOUND = 400 * 1024 * 1024  # a whole harness process; an uncut answer would be GBs
# fault, the failure kind it leaves in provider_calls, and the outcomes the run may end with
FAULTS = [
    (Fault.rate_limited(retry_after="0"), "rate_limited", {"finished"}),
    (Fault.server_error(500), "server_error", {"finished"}),
    (Fault.server_error(529), "server_error", {"finished"}),
    (Fault.drop(after_events=2), "connection", {"finished"}),
    (Fault.truncated(after_events=2), "connection", {"finished"}),
    (Fault.hang(0.3, after_events=1), "connection", {"finished"}),
    (Fault.stream_error("overloaded", after_events=1), "server_error", {"finished"}),
    (Fault.bad_arguments(), None, {"finished"}),
    (Fault.unauthorized(), "auth", {"provider_error"}),
    (Fault.http(400, "bad_request"), "bad_request", {"provider_error"}),
    (Fault.context_length(), "context_overflow", {"finished", "context_overflow"}),
    (Fault.empty_choices(), "malformed", {"provider_error"}),
    (Fault.invalid_body(), "malformed", {"provider_error"}),
    (Fault.endless("content"), "malformed", {"provider_error"}),
    (Fault.endless("arguments"), "malformed", {"provider_error"}),
    (Fault.endless("line"), "malformed", {"provider_error"}),
]
RNG = random.Random(SEED)


def steps() -> list[int]:
    return list(range(1, len(TURNS) + 1)) if SOAK else [RNG.randint(1, len(TURNS))]


CASES = [
    pytest.param(fault, failure, outcomes, wire, step, id=f"{wire}-{n}-{failure}-step{step}")
    for n, (fault, failure, outcomes) in enumerate(FAULTS)
    for wire in ("openai", "anthropic")
    for step in steps()
]


def peak_rss(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def run_and_watch(argv: list[str], env: dict[str, str]) -> tuple[int, str, float, int]:
    """Exit code, stdout, seconds, and the process's peak RSS as last seen before it ended.
    stdout goes to a file, not a pipe: a pipe nobody reads while polling could fill up."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out_file:
        with subprocess.Popen(argv, env=env, stdout=out_file, stderr=subprocess.DEVNULL) as process:
            peak = 0
            while process.poll() is None:
                peak = max(peak, peak_rss(process.pid) or 0)
                if time.monotonic() - started > 90:
                    process.kill()
                    raise AssertionError("the run did not end in bounded time")
                time.sleep(0.01)
        out_file.seek(0)
        out = out_file.read().decode()
    return process.returncode, out, time.monotonic() - started, peak


@pytest.mark.parametrize(("fault", "failure", "outcomes", "wire", "step"), CASES)
async def test_a_fault_at_a_random_step_ends_in_a_classified_outcome(
    fake_llm: MakeFakeLLM,
    tmp_path: Path,
    fault: Fault,
    failure: str | None,
    outcomes: set[str],
    wire: str,
    step: int,
) -> None:
    workspace = make_workspace(tmp_path, {"parser.py": PARSER_PY})
    store = tmp_path / "harness.db"
    fake = fake_llm(TURNS, wire=wire)
    fake.inject_at(step, fault)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["HARNESS_API_KEY"] = KEY
    argv = [sys.executable, "-m", "harness", "run", "look around", "-w", str(workspace)]
    argv += ["--provider", wire, "--base-url", fake.url, "--store", str(store), "--json", "--yes"]
    code, out, seconds, peak = run_and_watch(argv, env)
    result = json.loads(out)
    figures.add(AREA, faults_injected=1, runs=1, classified=result["outcome"] in outcomes)
    figures.peak(AREA, peak_rss_mib=round(peak / 2**20, 1), longest_run_s=round(seconds, 1))
    assert result["outcome"] in outcomes, (code, result)
    assert (code == 0) is (result["outcome"] == "finished")
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT step, failure FROM provider_calls ORDER BY id").fetchall()
    if failure is not None:
        assert (step, failure) in rows, rows
    else:
        assert all(f is None for _, f in rows)
    assert 0 < peak < PEAK_RSS_BOUND, f"peak RSS {peak / 1e6:.0f} MB"


def rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def run_in_process(
    fake: FakeLLM, tmp_path: Path, timeouts: Timeouts, *, cancel_at: int = 0
) -> tuple[Outcome, str | None, list[tuple[int, str | None]], int]:
    """A whole run of ``TURNS`` against ``fake``: outcome, error, (step, failure) of every
    provider call, and the RSS growth of this process while it ran. ``cancel_at``: cancel
    the run (as ``harness.cancel`` does) once that many requests have reached the model."""
    workspace = make_workspace(tmp_path, {"parser.py": PARSER_PY})
    config = fake.config(timeouts=timeouts, retry=RetryPolicy(max_attempts=5, backoff_base_s=0))
    with Store(tmp_path / "harness.db") as store:
        session = await open_session(
            build_contract("look around", workspace),
            Backend(store=store, provider=config, environ={"HARNESS_API_KEY": KEY}),
            RunRequest(approver=YesApprover(), policy=Policy.load(workspace, user_config=None)),
        )
        before = peak = rss()
        task = asyncio.create_task(session.execute())
        while not task.done():
            if cancel_at and len(fake.requests) >= cancel_at:
                session.run.cancel()
                cancel_at = 0
            peak = max(peak, rss())
            await asyncio.wait({task}, timeout=0.01)
        result = await asyncio.wait_for(task, 60)
    with sqlite3.connect(tmp_path / "harness.db") as db:
        rows = db.execute("SELECT step, failure FROM provider_calls ORDER BY id").fetchall()
    return result.end.outcome, result.end.error, [(s, f) for s, f in rows], peak - before


IN_PROCESS = [
    pytest.param(wire, step, id=f"{wire}-step{step}")
    for wire in ("openai", "anthropic")
    for step in steps()
]


@pytest.mark.parametrize(("wire", "step"), IN_PROCESS)
async def test_a_slow_loris_at_a_random_step_ends_the_run_as_a_timeout(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, step: int
) -> None:
    """Three attempts at the deadline (timeouts are retried at most twice), then the run
    ends ``provider_error`` with the kind ``timeout``."""
    fake = fake_llm(TURNS, wire=wire)
    for n in range(3):
        fake.inject_at(step + n, Fault.trickle(0.05))  # never silent: only the deadline cuts
    outcome, error, rows, growth = await asyncio.wait_for(
        run_in_process(fake, tmp_path, Timeouts(connect=2, read=2, total=0.4)), 90
    )
    figures.add(AREA, faults_injected=3, runs=1, classified=outcome is Outcome.PROVIDER_ERROR)
    figures.peak(AREA, in_process_rss_growth_mib=round(growth / 2**20, 1))
    assert outcome is Outcome.PROVIDER_ERROR, error
    assert error is not None and error.startswith(f"{FailureKind.TIMEOUT.value}:")
    assert rows[-3:] == [(step, "timeout")] * 3
    assert growth < PEAK_RSS_BOUND


@pytest.mark.parametrize(("wire", "step"), IN_PROCESS)
async def test_a_cancel_during_a_hung_call_ends_the_run_cancelled(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, step: int
) -> None:
    fake = fake_llm(TURNS, wire=wire)
    fake.inject_at(step, Fault.hang(60, after_events=1))  # far past the test's own bounds
    outcome, error, rows, growth = await asyncio.wait_for(
        run_in_process(fake, tmp_path, Timeouts(), cancel_at=step), 90
    )
    figures.add(AREA, faults_injected=1, runs=1, classified=outcome is Outcome.CANCELLED)
    figures.peak(AREA, in_process_rss_growth_mib=round(growth / 2**20, 1))
    assert outcome is Outcome.CANCELLED, error
    assert rows == [(n, None) for n in range(1, step)] + [(step, "cancelled")], rows
    assert growth < PEAK_RSS_BOUND
