"""The store on PostgreSQL against SQLite, in one run (§12; issue 25): per-step commit
p50/p95 (target: PostgreSQL's p95 within 3x SQLite's) and memory recall per turn at 4,096
notes (target: <= 10 ms on both).

PostgreSQL is a throwaway cluster with the server's default durability (fsync and
synchronous commit on), reached over its local Unix socket; SQLite is a file in WAL mode
with ``synchronous = NORMAL`` (the store's settings). The step is the ~62 KB step of
``test_bench_store``; each recall turn commits a step carrying the previous turn's recalls
(not timed) and then times ``RunMemory.block``, as the loop does.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.contract import MemoryLimits
from harness.memory import RunMemory
from harness.store import Store
from tests.support.pg import Cluster, start_cluster, unavailable
from tests.support.steps import commit_bare_step

from .conftest import record
from .test_bench_memory import Corpus, _turns
from .test_bench_store import _record

STEPS = 200
NOTES = 4_096
TURNS = 30
CEILING = 6_000


@pytest.fixture(scope="module")
def durable() -> Iterator[Cluster]:
    why = unavailable()
    if why is not None:
        if os.geteuid() == 0:
            pytest.fail(why)
        pytest.skip(why)
    cluster = start_cluster(durable=True)
    yield cluster
    cluster.stop()


def _p(times: list[float], q: float) -> float:
    return sorted(times)[int(len(times) * q)]


def _commits(location: Path | str) -> list[float]:
    with Store(location) as store:
        run = store.create_run(goal="g", workspace="/w", provider="p", model="m", contract="{}")
        times = []
        for step in range(1, STEPS + 1):
            rec = _record(run, step)
            t0 = time.perf_counter()
            store.commit_step(rec)
            times.append((time.perf_counter() - t0) * 1000)
        assert len(store.run_steps(run)) == STEPS
    return times


def test_step_commit_on_postgresql_and_sqlite(durable: Cluster, tmp_path: Path) -> None:
    sqlite = _commits(tmp_path / "bench.db")
    pg = _commits(durable.database())
    waiting = durable.database()
    pg_sync = _commits(waiting + "&options=-c%20synchronous_commit%3Don")
    s50, s95 = statistics.median(sqlite), _p(sqlite, 0.95)
    p50, p95 = statistics.median(pg), _p(pg, 0.95)
    record(
        "store_postgres",
        f"commit_step (~62 KB step), {STEPS} steps: SQLite p50 {s50:.2f} ms, p95 {s95:.2f} ms;"
        f" PostgreSQL (local socket) p50 {p50:.2f} ms, p95 {p95:.2f} ms: p95 ratio"
        f" {p95 / s95:.2f}x (target <= 3x); PostgreSQL waiting for its disk at each commit"
        f" (synchronous_commit = on): p50 {statistics.median(pg_sync):.2f} ms,"
        f" p95 {_p(pg_sync, 0.95):.2f} ms",
    )


def _recall_times(location: Path | str, ws: Path) -> tuple[list[float], float]:
    corpus = Corpus(seed=NOTES)
    limits = MemoryLimits(max_entries=NOTES, max_chars=NOTES * 2_000, max_entry_chars=2_000)
    with Store(location) as store:
        writer = store.create_run(
            goal="g", workspace=str(ws), provider="p", model="m", contract="{}"
        )
        t0 = time.perf_counter()
        for i in range(NOTES):
            a, b = corpus.pick(2)
            store.memory_write(
                ws, f"{a}-{b}-{i}", corpus.value(), writer, 1, "fact", limits=limits, similar=False
            )
        filled = (time.perf_counter() - t0) * 1000 / NOTES
        run = store.create_run(goal="g", workspace=str(ws), provider="p", model="m", contract="{}")
        memory = RunMemory(store, ws, run, limits)
        turns = _turns(Corpus(seed=NOTES + 1))
        quiet: list[float] = []
        busy: list[float] = []
        recalled: tuple[tuple[str, str], ...] = ()
        for step in range(1, 2 * TURNS + 1):
            if step > TURNS:  # the second half: a step carrying the recalls between turns
                commit_bare_step(store, run, step, recalls=recalled)
            goal, touched = next(turns)
            t0 = time.perf_counter()
            block = memory.block(max_chars=CEILING, goal=goal, touched=touched, step=step + 1)
            (quiet if step <= TURNS else busy).append((time.perf_counter() - t0) * 1000)
            recalled = block.recalled
            assert block.dropped > 0
    return quiet[1:], busy, filled  # the first turn builds the index


@pytest.mark.timeout(900)
def test_recall_at_4096_notes_on_postgresql_and_sqlite(durable: Cluster, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    lines = []
    for name, location in (("SQLite", tmp_path / "mem.db"), ("PostgreSQL", durable.database())):
        quiet, busy, per_write = _recall_times(location, ws)
        lines.append(
            f"{name} median {statistics.median(quiet):.2f} ms, p95 {_p(quiet, 0.95):.2f} ms;"
            f" with a step committed between turns median {statistics.median(busy):.2f} ms,"
            f" p95 {_p(busy, 0.95):.2f} ms (writing the notes: {per_write:.2f} ms each)"
        )
    record(
        "store_postgres",
        f"memory recall per turn, {NOTES:,} notes, ceiling {CEILING:,} chars (target <= 10 ms):"
        f" " + "; ".join(lines),
    )
