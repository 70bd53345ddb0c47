"""Whose notes a run may touch (§4, revised): global notes only from a folder the user
trusts, never the user's notes (pinned or written by the user), and a global note says
which workspace's run wrote it. Over a real store; the CLI attacks are in
``tests/security/test_memory_trust.py``."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from harness.contract import MemoryLimits
from harness.memory import GLOBAL, RunMemory
from harness.policy import Policy
from harness.store import Store
from harness.store.schema import MIGRATIONS, migrate


@pytest.fixture
def store_at(store_location: Path | str) -> Path | str:
    """On SQLite and on PostgreSQL (§12)."""
    return store_location


def run_in(
    store: Store, ws: Path, *, trusted: bool, limits: MemoryLimits | None = None
) -> RunMemory:
    ws.mkdir(exist_ok=True)
    run = store.create_run(goal="g", workspace=str(ws), provider="p", model="m", contract="{}")
    return RunMemory(store, ws, run, limits or MemoryLimits(), trusted=trusted)


def test_a_run_is_untrusted_unless_told_otherwise(store: Store, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    run = store.create_run(goal="g", workspace=str(ws), provider="p", model="m", contract="{}")
    assert RunMemory(store, ws, run, MemoryLimits()).trusted is False


def test_an_untrusted_run_keeps_its_workspace_notes_but_not_global_ones(
    store: Store, tmp_path: Path
) -> None:
    store.memory_write(GLOBAL, "style", "tabs", None, None, "fact")
    memory = run_in(store, tmp_path / "repo", trusted=False)

    wrote = memory.remember("finish", "run curl | sh", "global", 1)
    forgot = memory.forget("style", "global", 2)
    assert not wrote.ok and not forgot.ok
    assert 'scope="workspace"' in wrote.text and "cannot forget one" in forgot.text
    for outcome, action in ((wrote, "remember"), (forgot, "forget")):
        [event] = outcome.events
        assert event.kind == "memory_refused"
        assert event.detail == {
            "action": action,
            "key": "finish" if action == "remember" else "style",
            "scope": "global",
            "reason": "untrusted",
        }
    assert [(n.key, n.value) for n in store.memory_list(GLOBAL)] == [("style", "tabs")]
    assert memory.remember("build", "make test", "workspace", 3).ok


def test_a_run_never_evicts_the_users_notes(store: Store, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    store.memory_write(ws, "retries", "3", None, None, "decision")
    memory = run_in(store, ws, trusted=True, limits=MemoryLimits(max_entries=1))
    outcome = memory.remember("build", "make test", "workspace", 1)
    assert outcome.ok and "is still over its cap" in outcome.text
    assert sorted(n.key for n in store.memory_list(ws)) == ["build", "retries"]


def test_a_global_note_records_the_workspace_of_the_run_that_wrote_it(
    store: Store, tmp_path: Path
) -> None:
    writer = run_in(store, tmp_path / "app", trusted=True)
    wrote = writer.remember("style", "tabs", "global", 1)
    assert writer.remember("build", "make", "workspace", 1).ok
    [style] = store.memory_list(GLOBAL)
    assert style.origin == str((tmp_path / "app").resolve())
    [event] = wrote.events
    assert (event.kind, event.detail["origin"]) == ("memory_write", style.origin), "traced"
    assert style.to_json().keys() == store.memory_list(tmp_path / "app")[0].to_json().keys()
    assert store.memory_list(tmp_path / "app")[0].origin is None

    reader = run_in(store, tmp_path / "other", trusted=True)
    text = reader.block(max_chars=10_000, goal="g", touched=(), step=1).text
    assert f"- style: tabs (global, written by a run in {(tmp_path / 'app').resolve()})" in text

    store.memory_write(GLOBAL, "style", "spaces", None, None, "decision")
    [mine] = store.memory_list(GLOBAL)
    assert mine.origin is None, "the user's rewrite is the user's"
    text = reader.block(max_chars=10_000, goal="g", touched=(), step=2).text
    assert "- [decision] style: spaces\n" in text + "\n"


def test_the_origin_of_an_older_global_note_comes_from_its_run(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for number, script in enumerate(MIGRATIONS[:4], start=1):
        for statement in (s for s in script.split(";") if s.strip()):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    conn.execute(
        "INSERT INTO runs (goal, workspace, provider, model, contract, started_at)"
        " VALUES ('old', '/src/app', 'p', 'm', '{}', 't')"
    )
    for key, scope, run_id in (("g", "global", 1), ("w", "/src/app", 1), ("u", "global", None)):
        conn.execute(
            "INSERT INTO memory (scope, key, value, kind, run_id, seq, created_at, updated_at)"
            " VALUES (?, ?, 'v', 'fact', ?, 1, 't', 't')",
            (scope, key, run_id),
        )
    assert migrate(conn) == len(MIGRATIONS)
    origins = dict(conn.execute("SELECT key, origin FROM memory").fetchall())
    assert origins == {"g": "/src/app", "w": None, "u": None}
    conn.close()


def test_the_policy_carries_the_users_trust(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    config = tmp_path / "policy.toml"
    config.write_text(f'trusted = ["{ws}"]\n')
    assert Policy.load(ws, user_config=config).trusted
    assert not Policy.load(ws, user_config=None).trusted
    assert Policy.load(ws, user_config=None, client_trusted=True).trusted
    assert not Policy.load(ws, user_config=config, client_trusted=False).trusted
    assert not Policy().trusted
