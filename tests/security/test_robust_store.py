"""Attack: the store under contention (issue 20, item 8; SPEC §5).

- 13 of 80 simultaneous first opens of a new store failed (``table runs already exists``):
  each process read the schema version, then migrated from it. The version is now re-read
  inside the write transaction. Here 40 processes with 2 threads each open one new store at
  the same moment (a barrier file they all wait on); all succeed and the schema is whole.
- A store another process holds locked past the busy timeout printed a traceback (exit 1).
  Now ``harness run``, ``harness memory`` and ``harness trace`` print one line on stderr and
  exit 2.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.store import Store
from harness.store.schema import MIGRATIONS
from tests.e2e.cli import ROOT

PROCESSES = 40
THREADS = 2

OPENER = textwrap.dedent(
    """
    import sys, threading
    from harness.store import Store
    store_path, threads = sys.argv[1], int(sys.argv[2])
    failures = []
    barrier = threading.Barrier(threads)
    def open_it():
        barrier.wait()
        try:
            Store(store_path).close()
        except Exception as exc:
            failures.append(f"{type(exc).__name__}: {exc}")
    started = [threading.Thread(target=open_it) for _ in range(threads)]
    print("ready", flush=True)
    sys.stdin.read(1)  # every process waits here until the test says go
    for t in started: t.start()
    for t in started: t.join()
    print("\\n".join(failures) or "ok", flush=True)
    """
)


def test_many_processes_open_a_new_store_at_once(tmp_path: Path) -> None:
    store = tmp_path / "new.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", OPENER, str(store), str(THREADS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(PROCESSES)
    ]
    try:
        for proc in procs:  # every process is waiting at the barrier
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "ready"
        for proc in procs:  # go: one byte each, as fast as the pipes take them
            assert proc.stdin is not None
            proc.stdin.write("g")
            proc.stdin.flush()
        outputs = [proc.communicate(timeout=120) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    failures = [out + err for out, err in outputs if out.strip() != "ok"]
    assert failures == [], failures[:3]
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


HOLDER = textwrap.dedent(
    """
    import sqlite3, sys
    db = sqlite3.connect(sys.argv[1], isolation_level=None)
    if sys.argv[2] == "all":  # readers are shut out too, not only writers
        db.execute("PRAGMA locking_mode = EXCLUSIVE")
    db.execute("BEGIN EXCLUSIVE")
    db.execute("UPDATE runs SET goal = goal")
    print("locked", flush=True)
    sys.stdin.read()
    """
)


@contextmanager
def locked(store: Path, how: str) -> Iterator[None]:
    """``store`` (already migrated) held by another process with an exclusive lock: against
    writers only (WAL readers go on), or against ``all``."""
    Store(store).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store), how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
        holder.stdout.close()


@pytest.mark.parametrize(
    ("how", "argv"),
    [
        pytest.param("writers", ["run", "look"], id="run-write-locked"),
        pytest.param("all", ["run", "look"], id="run-all-locked"),
        pytest.param("writers", ["memory", "write", "k", "v"], id="memory-write"),
        pytest.param("all", ["memory", "list"], id="memory-list"),
        pytest.param("all", ["trace", "runs"], id="trace-runs"),
    ],
)
def test_a_locked_store_is_one_line_and_exit_2(tmp_path: Path, how: str, argv: list[str]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    script = tmp_path / "turns.json"
    script.write_text('[{"content": "done"}]')
    store = tmp_path / "locked.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    full = [sys.executable, "-m", "harness", *argv, "--store", str(store)]
    if argv[0] == "run":
        full += ["--provider", "scripted", "--script", str(script)]
    if argv[0] in ("run", "memory"):
        full += ["-w", str(workspace)]
    with locked(store, how):
        done = subprocess.run(
            full, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False
        )
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "locked by another process" in lines[0] and str(store) in lines[0], lines[0]
    assert done.returncode == 2, done.stderr
