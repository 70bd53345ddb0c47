"""A SIGKILL anywhere in a writing run loses nothing revert cannot undo (§5; issue 11,
seen 5: "in 11 of 16 kills the killed step's files were on disk with no edits row; revert
then refused one file and left another behind; killed runs stay running for ever").

A real child process (``tests/support/crash_driver.py``) writes files as a run does —
announce in the store, write atomically, commit the step — and is killed: after every single
operation of a fixed plan, and at random moments of a long run. Each time: the database
passes ``integrity_check``, every committed step is whole, the run is ``interrupted`` when the
store is next opened, and ``revert`` puts the workspace back byte for byte (modes too),
removing the files and directories the run created and any temp file a write left.
"""

from __future__ import annotations

import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.revert import RevertAction, revert_run
from harness.store import Store
from tests.support import figures
from tests.support.crash_driver import PLAN

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT_S = 30.0
SOAK = os.environ.get("HARNESS_SOAK") == "1"
RANDOM_KILLS = int(os.environ.get("HARNESS_CRASH_KILLS", "100" if SOAK else "20"))
Snapshot = dict[str, tuple[bytes, int] | None]  # file: (content, mode); directory: None


def make_workspace(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"a original\n")
    (root / "b.txt").write_bytes(b"b original\r\n\x00binary\xff")
    os.chmod(root / "b.txt", 0o640)
    (root / "src" / "keep.txt").write_text("untouched\n")
    return root


def snapshot(root: Path) -> Snapshot:
    found: Snapshot = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        found[rel] = None if path.is_dir() else (path.read_bytes(), path.stat().st_mode & 0o777)
    return found


def start_driver(store: Path, ws: Path, mode: str, count: int) -> tuple[subprocess.Popen[str], int]:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.support.crash_driver", str(store), str(ws), mode, str(count)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    # The driver prints "ready <run id>" and flushes; never wait for it without a bound.
    readable, _, _ = select.select([child.stdout], [], [], READY_TIMEOUT_S)
    if not readable:
        child.kill()
        pytest.fail(f"the driver did not start within {READY_TIMEOUT_S} s")
    line = child.stdout.readline()
    assert line.startswith("ready "), f"driver said {line!r} (exit {child.poll()})"
    return child, int(line.split()[1])


def kill(child: subprocess.Popen[str]) -> None:
    child.send_signal(signal.SIGKILL)
    assert child.wait(timeout=READY_TIMEOUT_S) == -signal.SIGKILL
    assert child.stdout is not None
    child.stdout.close()


def check_after_crash(store_path: Path, ws: Path, run_id: int, original: Snapshot) -> int:
    """The promises of §5 after a kill; returns how many steps had committed."""
    conn = sqlite3.connect(store_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        steps = conn.execute(
            "SELECT step, tool_calls FROM steps WHERE run_id = ? ORDER BY step", (run_id,)
        ).fetchall()
        for step, calls in steps:
            wanted = calls.count('"write_file"')
            observations = conn.execute(
                "SELECT count(*) FROM observations WHERE run_id = ? AND step = ?", (run_id, step)
            ).fetchone()[0]
            confirmed = conn.execute(
                "SELECT count(*) FROM edits WHERE run_id = ? AND step = ? AND committed = 1",
                (run_id, step),
            ).fetchone()[0]
            assert observations == confirmed == wanted, f"step {step} is not whole"
    finally:
        conn.close()
    with Store(store_path) as store:
        assert run_id in store.interrupted
        run = store.get_run(run_id)
        assert run is not None and run.outcome == "interrupted"
        assert run.error is not None and f"harness revert {run_id}" in run.error
        touched = {e.path for e in store.run_edits(run_id)}
        now = snapshot(ws)
        # A directory is None on both sides (new or not), so only files count as changed.
        changed = {
            p
            for p in set(now) | set(original)
            if now.get(p) != original.get(p) and ".harness-tmp" not in p
        }
        assert changed <= touched, f"files on disk the store does not know: {changed - touched}"
        result = revert_run(store, run_id)
    assert result is not None
    refused = [f for f in result.files if f.action in (RevertAction.REFUSED, RevertAction.FAILED)]
    assert refused == []
    assert snapshot(ws) == original, "revert restores every file byte for byte"
    return len(steps)


@pytest.mark.parametrize("stop", range(len(PLAN) + 1))
def test_a_kill_after_any_operation_is_undone_by_revert(tmp_path: Path, stop: int) -> None:
    ws = make_workspace(tmp_path / "ws")
    original = snapshot(ws)
    store_path = tmp_path / "store.db"
    child, run_id = start_driver(store_path, ws, "plan", stop)
    kill(child)
    committed = check_after_crash(store_path, ws, run_id, original)
    assert committed == sum(1 for op in PLAN[:stop] if op.kind == "commit")
    figures.add("SIGKILL after each store/disk operation (driver)", kills_survived=1)


@pytest.mark.timeout(1800 if SOAK else 600)
def test_kills_at_random_moments_of_a_long_run_are_undone_by_revert(tmp_path: Path) -> None:
    rng = random.Random(20_261_201)
    committed: list[int] = []
    for i in range(RANDOM_KILLS):
        ws = make_workspace(tmp_path / f"ws{i}")
        original = snapshot(ws)
        store_path = tmp_path / f"store{i}.db"
        child, run_id = start_driver(store_path, ws, "loop", 100_000)
        time.sleep(rng.uniform(0.0, 0.4))  # the random kill point is the point of the test
        kill(child)
        committed.append(check_after_crash(store_path, ws, run_id, original))
    figures.record(
        "SIGKILL at random moments (driver, no pause between writes)",
        kills_survived=len(committed),
        steps_committed_and_checked_whole=sum(committed),
        workspaces_restored_byte_for_byte=len(committed),
    )
    assert len(committed) == RANDOM_KILLS
    assert max(committed) > 0, "some kills landed after steps had committed"
    print(f"steps committed before each kill: {committed}")
