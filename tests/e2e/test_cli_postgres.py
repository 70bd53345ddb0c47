"""The real ``harness`` command line on a real PostgreSQL server (§12): four runs started at
once on a database that does not exist yet all create it, migrate it and finish with
contiguous steps; a run killed with SIGKILL is marked interrupted and ``harness revert``
restores every byte; two checkouts of one repository share their notes, with who wrote
them; and a URL's password never shows in an error."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from tests.e2e.cli import ROOT, env, harness, user_config
from tests.reliability.test_store_crash_run import make_project, script, snapshot
from tests.support.pg import Cluster

RUNS = 4
STEPS = 12


def start_run(ws: Path, url: str, turns: Path) -> subprocess.Popen[str]:
    """A run with the after-edit diagnostics off (a user config beside ``turns``): each step
    writes ``src/a.py``, and jedi-language-server's 1 s debounce per step was most of these
    tests' time, for a rule about the store."""
    args = ["run", "write things", "-w", str(ws), "--store", url, "--script", str(turns)]
    config = str(user_config(turns.parent / "config").parents[1])
    return subprocess.Popen(
        [sys.executable, "-m", "harness", *args, "--max-steps", "500", "--yes", "--json"],
        cwd=ROOT,
        env=env(XDG_CONFIG_HOME=config),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finite_script(path: Path, steps: int) -> Path:
    turns = json.loads(script(path, steps).read_text())
    turns["turns"].append({"content": "Done."})
    path.write_text(json.dumps(turns))
    return path


def committed_steps(url: str) -> int:
    try:
        with psycopg.connect(url) as conn:
            row = conn.execute("SELECT count(*) FROM steps").fetchone()
    except psycopg.Error:
        return 0  # not created or not migrated yet
    return int(row[0]) if row else 0


@pytest.mark.timeout(300)
def test_four_runs_at_once_create_a_new_database_and_finish_whole(
    pg_cluster: Cluster, tmp_path: Path
) -> None:
    url = pg_cluster.url(pg_cluster.fresh_name("new"))  # no such database yet
    procs = [
        start_run(
            make_project(tmp_path / f"ws{i}"), url, finite_script(tmp_path / f"t{i}.json", STEPS)
        )
        for i in range(RUNS)
    ]
    results = [p.communicate(timeout=240) for p in procs]
    assert [p.returncode for p in procs] == [0] * RUNS, [err for _, err in results]
    ids = sorted(json.loads(out)["runId"] for out, _ in results)
    assert ids == list(range(1, RUNS + 1))
    with psycopg.connect(url) as conn:
        for run_id in ids:
            steps = [
                r[0]
                for r in conn.execute(
                    "SELECT step FROM steps WHERE run_id = %s ORDER BY step", (run_id,)
                )
            ]
            assert steps == list(range(1, STEPS + 2)), f"run {run_id}: {steps}"
            observed = conn.execute(
                "SELECT count(*) FROM observations WHERE run_id = %s", (run_id,)
            ).fetchone()
            assert observed is not None and observed[0] == 3 * STEPS
        outcomes = conn.execute("SELECT DISTINCT outcome FROM runs").fetchall()
        assert outcomes == [("finished",)]
        [(version,)] = conn.execute("SELECT version FROM harness_schema").fetchall()
    from harness.store.schema import MIGRATIONS

    assert version == len(MIGRATIONS)


@pytest.mark.timeout(300)
def test_sigkill_mid_run_then_revert_restores_every_byte(pg_store_url: str, tmp_path: Path) -> None:
    ws = make_project(tmp_path / "ws")
    (ws / "bin.dat").write_bytes(b"\x00\xff binary \r\n")
    original = snapshot(ws)
    proc = start_run(ws, pg_store_url, script(tmp_path / "turns.json", 400))
    deadline = time.monotonic() + 120
    while committed_steps(pg_store_url) < 5:  # the run is under way: kill it mid-run
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert snapshot(ws) != original
    shown = harness("trace", "runs", "--store", pg_store_url, "--json")
    assert shown.code == 0, shown.stderr
    [run] = shown.json()
    assert run["outcome"] == "interrupted"
    reverted = harness("revert", str(run["runId"]), "--store", pg_store_url, "--json")
    assert reverted.code == 0, reverted.stderr
    assert snapshot(ws) == original


def checkout(root: Path, origin: str) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", origin], check=True)
    return root


def test_two_checkouts_share_notes_and_a_password_never_shows(
    pg_store_url: str, tmp_path: Path
) -> None:
    mine = checkout(tmp_path / "alice" / "app", "git@example.com:team/app.git")
    theirs = checkout(tmp_path / "bob" / "work" / "app", "https://bob:tok@example.com/team/app")
    wrote = harness(
        "memory", "write", "build", "make test", "-w", mine, "--store", pg_store_url, "--json"
    )
    assert wrote.code == 0, wrote.stderr
    listed = harness("memory", "list", "-w", theirs, "--store", pg_store_url, "--json")
    assert listed.code == 0, listed.stderr
    [note] = listed.json()
    assert (note["key"], note["value"], note["authorPath"]) == (
        "build",
        "make test",
        str(mine.resolve()),
    )
    assert note["author"].endswith("@" + __import__("socket").gethostname())
    table = harness("memory", "list", "-w", theirs, "--store", pg_store_url, COLUMNS="120")
    assert table.code == 0 and note["author"] in table.stdout, table.stdout
    secret = "hunter2-secret"
    bad = f"postgresql://someone:{secret}@/nodb?host={tmp_path}/no-such-socket-dir"
    failed = harness("memory", "list", HARNESS_STORE=bad)  # on a command line it is refused
    assert failed.code == 2 and failed.stderr.count("\n") == 1, failed.stderr
    assert secret not in failed.stderr + failed.stdout and "***" in failed.stderr
    refused = harness("memory", "list", "--store", bad)
    assert refused.code == 2 and "HARNESS_STORE" in refused.stderr
    assert secret not in refused.stderr + refused.stdout
