"""Sweep: the store against another local user and a planted key (issue 9, seen 8: "the
store is created 0644"; SPEC §5, §6.7), through the real ``harness run``.

- Under a permissive umask (``002``: group-writable, world-readable), the default store
  (``$XDG_DATA_HOME/harness/harness.db``), its ``-wal`` and ``-shm`` (read while the run
  holds them open) and the directories the harness created for it are the user's alone.
- What is not promised, made exact: the ``edits`` table keeps the content a run wrote, so
  that ``revert`` can restore it. A file the agent writes with the key in it is the one
  place in the store where the key is kept — every other table and column is free of it.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.e2e.cli import ROOT
from tests.support.fake_llm import FakeLLM
from tests.support.planted import Planted, store_files

PLANTED = Planted.new("storesweep")
KEY = PLANTED.key


def run(tmp: Path, fake: FakeLLM, *, store: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env = {k: v for k, v in env.items() if not k.startswith("HARNESS_")}
    env.update(
        HARNESS_API_KEY=KEY,
        XDG_DATA_HOME=str(tmp / "data"),
        XDG_CONFIG_HOME=str(tmp / "config"),
    )
    argv = [sys.executable, "-m", "harness", "run", f"write the key {KEY}", "-w", str(tmp / "ws")]
    argv += ["--provider", "openai", "--base-url", fake.url, "--model", "m", "--yes"]
    if store is not None:
        argv += ["--store", str(store)]
    return subprocess.run(
        ["sh", "-c", 'umask 002 && exec "$@"', "sh", *argv],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=90, check=False,
    )  # fmt: skip


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_default_store_is_private_whatever_the_umask(tmp_path: Path, fake_llm: Any) -> None:
    (tmp_path / "ws").mkdir()
    store = tmp_path / "data" / "harness" / "harness.db"
    seen: dict[str, int] = {}

    def look(body: dict[str, Any]) -> dict[str, Any]:  # asked while the run holds the store
        seen.update({p.name: mode(p) for p in store_files(store)})
        return {"content": "done"}

    fake = fake_llm([{"tool_calls": [{"name": "list_dir", "arguments": {}}]}, look])
    done = run(tmp_path, fake)
    assert done.returncode == 0, done.stderr
    assert seen == {"harness.db": 0o600, "harness.db-wal": 0o600, "harness.db-shm": 0o600}
    assert mode(store) == 0o600
    assert mode(store.parent) == 0o700 and mode(store.parent.parent) == 0o700


def test_no_table_keeps_a_key_the_run_tried_to_write(tmp_path: Path, fake_llm: Any) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "config.py").write_text("TOKEN = None\n")
    store = tmp_path / "store.db"
    fake = fake_llm(
        [
            {
                "content": f"writing {KEY}",
                "tool_calls": [
                    {"name": "write_file", "arguments": {"path": "k.txt", "content": KEY}},
                    {
                        "name": "edit_file",
                        "arguments": {"path": "config.py", "old": "None", "new": f"'{KEY}'"},
                    },
                ],
            },
            {"content": "done"},
        ]
    )
    done = run(tmp_path, fake, store=store)
    assert done.returncode == 0, done.stderr
    # a write whose content holds the key is refused (issue 30, finding 18): never on disk
    assert not (tmp_path / "ws" / "k.txt").exists()
    assert (tmp_path / "ws" / "config.py").read_text() == "TOKEN = None\n"
    holding: set[tuple[str, str]] = set()
    with sqlite3.connect(store) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
            for column in columns:
                for (value,) in db.execute(f'SELECT "{column}" FROM "{table}"'):
                    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
                    if isinstance(text, str) and PLANTED.pieces_in(text):
                        holding.add((table, column))
    assert holding == set(), holding
    assert PLANTED.leak("stderr", done.stderr) is None
