"""Crash consistency in the store (§5) on real SQLite files, real PostgreSQL databases
(§12) and real processes: write
intents and their reconciliation with a step's edits, the schema's migrations from an older
store, and runs of dead processes marked ``interrupted`` when a store is opened — while runs
of live processes (this one, another CLI, the server) are left alone."""

from __future__ import annotations

import dataclasses
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from harness.errors import StoreError
from harness.store import Store
from harness.store.owner import current_owner, is_gone
from harness.store.schema import MIGRATIONS, migrate
from harness.types import FileWrite, Outcome, RunEnd
from tests.support.steps import commit_bare_step
from tests.support.stores import raw_execute, raw_rows


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    return root


def new_run(store: Store, ws: Path) -> int:
    return store.create_run(goal="g", workspace=str(ws), provider="p", model="m", contract="{}")


def commit_with_edits(store: Store, run: int, step: int, edits: list[FileWrite]) -> None:
    commit_bare_step(store, run, step, edits=edits)


def edit_rows(store: Store) -> list[tuple[int, str, int]]:
    rows = raw_rows(store.location, "SELECT step, path, committed FROM edits ORDER BY id")
    return [tuple(r) for r in rows]


# -- intents ------------------------------------------------------------------------------


def test_an_announced_write_is_committed_before_the_step_and_confirmed_by_it(
    store: Store, ws: Path
) -> None:
    run = new_run(store, ws)
    store.announce_write(run, 1, "src/a.py", None, b"new\n")
    # Another connection (a process reading after a crash) sees the intent at once.
    with Store(store.location) as other:
        [intent] = other.run_edits(run)
    assert (intent.path, intent.before, intent.after, intent.committed) == (
        "src/a.py",
        None,
        b"new\n",
        False,
    )
    commit_with_edits(store, run, 1, [FileWrite("src/a.py", None, b"new\n")])
    assert edit_rows(store) == [(1, "src/a.py", 1)], "confirmed in place: no bytes stored twice"
    [edit] = store.run_edits(run)
    assert edit.committed


def test_an_intent_is_named_as_the_steps_edit_will_name_it(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    store.announce_write(run, 1, "./src//a.py", None, b"x")
    commit_with_edits(store, run, 1, [FileWrite("src/a.py", None, b"x")])
    assert edit_rows(store) == [(1, "src/a.py", 1)]


def test_a_write_the_step_does_not_report_stays_an_intent(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    store.announce_write(run, 1, "a.txt", b"old", b"new")
    store.announce_write(run, 1, "b.txt", b"b", b"b2")
    commit_with_edits(store, run, 1, [FileWrite("b.txt", b"b", b"b2")])
    assert edit_rows(store) == [(1, "a.txt", 0), (1, "b.txt", 1)]
    assert store.files_changed(run) == ["b.txt"]


def test_a_host_that_does_not_announce_still_records_its_edits(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    commit_with_edits(store, run, 1, [FileWrite("a.txt", None, b"x")])
    store.announce_write(run, 2, "a.txt", b"x", b"y")
    # An edit whose bytes differ from the intent is recorded anew; the intent stays one.
    commit_with_edits(store, run, 2, [FileWrite("a.txt", b"x", b"z")])
    assert edit_rows(store) == [(1, "a.txt", 1), (2, "a.txt", 0), (2, "a.txt", 1)]


def test_an_intent_records_the_directories_the_write_will_create(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    store.announce_write(run, 1, "new/deeper/c.txt", None, b"c")
    store.announce_write(run, 1, "src/d.txt", None, b"d")
    first, second = store.run_edits(run)
    assert first.new_dirs == ("new", "new/deeper")
    assert second.new_dirs == ()


def test_announcing_for_an_unknown_run_raises_so_the_write_does_not_happen(store: Store) -> None:
    with pytest.raises(StoreError, match=r"cannot record the write of a\.txt"):
        store.announce_write(999, 1, "a.txt", None, b"x")


def test_files_changed_are_the_committed_paths_in_first_write_order(store: Store, ws: Path) -> None:
    run = new_run(store, ws)
    commit_with_edits(store, run, 1, [FileWrite("b.txt", None, b"1"), FileWrite("a.txt", b"", b"")])
    commit_with_edits(
        store, run, 2, [FileWrite("b.txt", b"1", b"2"), FileWrite("c/d.txt", None, b"")]
    )
    store.announce_write(run, 3, "z.txt", None, b"never committed")
    assert store.files_changed(run) == ["b.txt", "a.txt", "c/d.txt"]


# -- migrations ---------------------------------------------------------------------------


def test_a_store_of_an_older_schema_migrates_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for number, script in enumerate(MIGRATIONS[:2], start=1):
        for statement in (s for s in script.split(";") if s.strip()):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    conn.execute(
        "INSERT INTO runs (goal, workspace, provider, model, contract, started_at)"
        " VALUES ('old', '/w', 'p', 'm', '{}', 't')"
    )
    conn.execute(
        "INSERT INTO edits (run_id, step, path, before, after, created_at)"
        " VALUES (1, 1, 'a.txt', NULL, x'00', 't')"
    )
    conn.close()
    with Store(path) as store:
        assert store.version == len(MIGRATIONS)
        assert store.interrupted == (), "a run with no recorded owner is not judged"
        run = store.get_run(1)
        assert run is not None and run.outcome is None
        [edit] = store.run_edits(1)
        assert edit.committed and edit.after == b"\x00"
    fresh = sqlite3.connect(path, isolation_level=None)
    assert migrate(fresh) == len(MIGRATIONS), "applying again changes nothing"
    fresh.close()


# -- interrupted runs ---------------------------------------------------------------------


def set_owner(path: Path | str, run: int, pid: int, started: str | None, host: str) -> None:
    raw_execute(
        path,
        "UPDATE runs SET owner_pid = ?, owner_started = ?, owner_host = ? WHERE id = ?",
        (pid, started, host, run),
    )


def test_a_run_of_this_live_process_is_left_alone(store_at: Path | str, ws: Path) -> None:
    with Store(store_at) as first:
        run = new_run(first, ws)
        with Store(store_at) as second:  # the CLI opening the server's store, say
            assert second.interrupted == ()
            assert second.get_run(run).outcome is None  # type: ignore[union-attr]


def test_a_run_whose_process_died_is_interrupted_on_the_next_open(
    store_at: Path | str, ws: Path
) -> None:
    path = store_at
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        probe = current_owner()
        started = _started_of(child.pid)
        with Store(path) as store:
            run = new_run(store, ws)
            commit_bare_step(store, run, 1)
        set_owner(path, run, child.pid, started, probe.host)
        with Store(path) as store:
            assert store.interrupted == (), "its process is alive"
    finally:
        child.kill()
        child.wait(timeout=10)
    with Store(path) as store:
        assert store.interrupted == (run,)
        row = store.get_run(run)
        assert row is not None and row.outcome == "interrupted" and row.steps == 1
        assert row.finished_at is not None
        assert [e["kind"] for e in store.context_events(run)] == ["run_interrupted"]
    with Store(path) as store:
        assert store.interrupted == (), "marked once"


def test_a_finished_run_is_never_marked(store_at: Path | str, ws: Path) -> None:
    path = store_at
    with Store(path) as store:
        run = new_run(store, ws)
        store.finish_run(run, RunEnd(Outcome.FINISHED, 0, 0))
    set_owner(path, run, 2**22 + 12_345, None, current_owner().host)
    with Store(path) as store:
        assert store.interrupted == ()
        assert store.get_run(run).outcome == "finished"  # type: ignore[union-attr]


def test_owners_are_judged_only_when_we_can_tell() -> None:
    me = current_owner()
    assert me.started is not None and me.started.count(":") == 2
    assert not is_gone(me)
    assert is_gone(dataclasses.replace(me, pid=2**22 + 12_345)), "no such process"
    boot, namespace, ticks = me.started.split(":")
    reused = f"{boot}:{namespace}:{int(ticks) + 1}"
    assert is_gone(dataclasses.replace(me, started=reused)), "another process took the pid"
    rebooted = f"not-this-boot:{namespace}:{ticks}"
    assert is_gone(dataclasses.replace(me, started=rebooted)), "the machine rebooted since"
    elsewhere = dataclasses.replace(me, pid=2**22 + 12_345, host=me.host + "-other")
    assert not is_gone(elsewhere), "another host's process is not ours to judge"
    container = dataclasses.replace(me, pid=2**22 + 12_345, started=f"{boot}:1:{ticks}")
    assert not is_gone(container), "another pid namespace is not ours to judge"


def _started_of(pid: int) -> str:
    """How the store names process ``pid``: this boot, this pid namespace, its start time."""
    me = current_owner()
    assert me.started is not None
    boot, namespace, _ = me.started.split(":")
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return f"{boot}:{namespace}:{fields[19]}"


def test_a_store_too_busy_to_mark_opens_and_marks_next_time(
    tmp_path: Path, ws: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from harness.store import base

    path = tmp_path / "s.db"
    with Store(path) as store:
        run = new_run(store, ws)
    set_owner(path, run, 2**22 + 12_345, None, current_owner().host)  # a pid that is gone
    monkeypatch.setattr(base, "BUSY_TIMEOUT_MS", 50)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
    try:
        with caplog.at_level("WARNING", logger="harness.store"), Store(path) as store:
            assert store.interrupted == ()
            assert store.get_run(run).outcome is None  # type: ignore[union-attr]
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert any("could not mark interrupted runs" in r.getMessage() for r in caplog.records)
    with Store(path) as store:
        assert store.interrupted == (run,)
