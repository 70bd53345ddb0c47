"""Portable workspace identity and authorship in the store (§4, §12), on both backends:
two checkouts of one repository share their notes, every note, run and recall says who
(``user@host``) and where (the canonical path) it came from, and a store of the older
schema keeps its path-keyed notes reachable under the identity."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
from pathlib import Path

from harness.store import Store
from harness.store.owner import author
from harness.store.schema import IDENTITY, MIGRATIONS
from tests.support.steps import commit_bare_step
from tests.support.stores import raw_rows

ORIGIN = "git@github.com:team/app.git"


def checkout(root: Path, origin: str = ORIGIN) -> Path:
    (root / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", origin], check=True)
    return root


def test_two_checkouts_of_one_repository_share_notes(store: Store, tmp_path: Path) -> None:
    mine = checkout(tmp_path / "alice" / "app")
    theirs = checkout(tmp_path / "bob" / "src" / "app-copy", "https://github.com/team/app")
    store.memory_write(mine, "build", "make test", None, None, "decision")
    run = store.create_run(goal="g", workspace=str(mine), provider="p", model="m", contract="{}")
    store.memory_write(mine / "pkg", "pkg-note", "only in pkg", run, 1, "fact")
    [shared] = store.memory_list(theirs)
    assert (shared.key, shared.value, shared.scope_key) == (
        "build",
        "make test",
        "git:github.com/team/app",
    )
    assert [n.key for n in store.memory_list(theirs / "pkg")] == ["pkg-note"]
    assert store.memory_list(tmp_path) == [], "a folder outside the repository is its own scope"


def test_notes_runs_and_recalls_record_who_and_where(store: Store, tmp_path: Path) -> None:
    ws = checkout(tmp_path / "app")
    me = author()
    assert me.endswith("@" + socket.gethostname()) and "@" in me
    store.memory_write(ws, "op", "the operator's", None, None, "decision")
    run = store.create_run(goal="g", workspace=str(ws), provider="p", model="m", contract="{}")
    store.memory_write(ws, "fact", "the agent's", run, 1, "fact")
    commit_bare_step(store, run, 2, recalls=[(store.memory_get(ws, "fact").scope_key, "fact")])  # type: ignore[union-attr]
    op, fact = store.memory_list(ws)
    assert (op.author, op.author_path) == (me, str(ws.resolve()))
    assert (fact.author, fact.author_path) == (me, str(ws.resolve()))
    assert op.to_json()["author"] == me and op.to_json()["authorPath"] == str(ws.resolve())
    [r] = raw_rows(store.location, "SELECT author FROM runs WHERE id = ?", (run,))
    assert r[0] == me
    [rec] = raw_rows(store.location, "SELECT author, author_path FROM memory_recalls")
    assert tuple(rec) == (me, str(ws.resolve()))


def test_an_older_store_keeps_its_path_keyed_notes_reachable(tmp_path: Path) -> None:
    ws = checkout(tmp_path / "app")
    plain = tmp_path / "plain"
    plain.mkdir()
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    before = MIGRATIONS.index(IDENTITY)
    for number, script in enumerate(MIGRATIONS[:before], start=1):
        for statement in (s for s in script.split(";") if s.strip()):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    for scope, key in ((str(ws), "a"), (str(plain), "b"), ("/gone/away", "c"), ("global", "g")):
        conn.execute(
            "INSERT INTO memory (scope, key, value, kind, seq, created_at, updated_at)"
            " VALUES (?, ?, 'v', 'decision', 1, 't', 't')",
            (scope, key),
        )
    conn.close()
    with Store(path) as store:
        assert [n.key for n in store.memory_list(ws)] == ["a"]
        assert store.memory_list(ws)[0].scope_key == "git:github.com/team/app"
        assert [n.key for n in store.memory_list(plain)] == ["b"]
        assert [n.key for n in store.memory_list("global")] == ["g"]
        [gone] = raw_rows(path, "SELECT scope FROM memory WHERE key = 'c'")
        assert gone[0] == "/gone/away", "a folder not on this machine keeps its key"
