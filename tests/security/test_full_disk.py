"""Still open from issue 30's previous round: "a full disk ends a run as "internal error"
recorded `cancelled`".

A real full disk: a 512 KiB tmpfs mounted for the test (root only — CI runs as root; as
another user the test is skipped, saying why). The store on it: the run ends
``store_error`` naming the store and the reason, one line per failure, no traceback, exit 1.
The workspace on it (the store elsewhere): the write that does not fit is an observation
(``No space left on device``) and the run goes on to finish.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.cli import harness
from tests.support.scripted_turns import call, turn

BIG = "y" * 700_000  # more than the disk holds (an empty store takes ~140 KiB of it)


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(disk)], check=True)
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=True)


def _script(tmp: Path) -> Path:
    path = tmp / "script.json"
    turns = [turn(call("write_file", path="big.txt", content=BIG)), {"content": "ok"}]
    path.write_text(json.dumps({"turns": turns}))
    return path


def test_a_full_store_ends_the_run_as_a_store_error(tmp_path: Path, full_disk: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    store = full_disk / "s.db"
    out = harness("run", "x", "-w", ws, "--script", _script(tmp_path), "--store", store, "--json")
    assert out.code == 1, out.stderr
    assert json.loads(out.stdout)["outcome"] == "store_error", out.stdout
    assert f"the store at {store} could not be written: database or disk is full" in out.stderr
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr


def test_a_write_to_a_full_disk_is_an_observation(tmp_path: Path, full_disk: Path) -> None:
    ws = full_disk / "ws"
    ws.mkdir()
    store = tmp_path / "s.db"
    out = harness("run", "x", "-w", ws, "--script", _script(tmp_path), "--store", store, "--json")
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout)["outcome"] == "finished", out.stdout
    step = harness("trace", "step", "1", "1", "--store", store, "--json").json()
    assert "`big.txt` could not be written: No space left on device" in step["result"], step
    assert not (ws / "big.txt").exists()
    assert [p.name for p in ws.iterdir()] == [], "no temp file left behind"
