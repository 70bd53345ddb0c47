"""Every provider fault kind, injected at a random step of a whole ``harness run`` (fixed seed),
ends in a classified outcome in bounded time with bounded memory (issue 11, the standing
suite): retryable faults are retried and the run finishes; the others end it with the outcome
their kind says. Each fault is in ``provider_calls`` at the step it hit, with its kind."""

from __future__ import annotations

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

from tests.conftest import MakeFakeLLM
from tests.support.fake_llm import Fault

SEED = 20_261_201
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
CASES = [
    pytest.param(
        fault, failure, outcomes, wire, RNG.randint(1, len(TURNS)), id=f"{wire}-{n}-{failure}"
    )
    for n, (fault, failure, outcomes) in enumerate(FAULTS)
    for wire in ("openai", "anthropic")
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
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "parser.py").write_text("def parse(x):\n    return x\n")
    store = tmp_path / "harness.db"
    fake = fake_llm(TURNS, wire=wire)
    fake.inject_at(step, fault)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["HARNESS_API_KEY"] = KEY
    argv = [sys.executable, "-m", "harness", "run", "look around", "-w", str(workspace)]
    argv += ["--provider", wire, "--base-url", fake.url, "--store", str(store), "--json", "--yes"]
    code, out, _, peak = run_and_watch(argv, env)
    result = json.loads(out)
    assert result["outcome"] in outcomes, (code, result)
    assert (code == 0) is (result["outcome"] == "finished")
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT step, failure FROM provider_calls ORDER BY id").fetchall()
    if failure is not None:
        assert (step, failure) in rows, rows
    else:
        assert all(f is None for _, f in rows)
    assert 0 < peak < PEAK_RSS_BOUND, f"peak RSS {peak / 1e6:.0f} MB"
