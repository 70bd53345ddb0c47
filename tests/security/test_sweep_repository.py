"""Sweep: files a hostile repository chooses, read by the harness itself (not by a tool on
the model's behalf) — ``.harness/policy.toml`` and ``.gitignore`` — must not block it or
fill its memory: a FIFO, a symlink to ``/dev/zero`` or a huge file is refused or skipped
with a clear word, at once. ripgrep reads ``.gitignore`` too (and follows a symlink), so
grep and find must come back with an answer as well — except for a FIFO, which ripgrep
opens and waits on until grep's own 60-second limit ends it (docs/SECURITY.md, not
promised).

Every harness process here runs under an address-space limit (``ulimit -v``): a regression
makes the test fail, not the machine swap.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.cli import ROOT
from tests.e2e.lsp import (
    SCRATCH,
    SERVER_COMMAND,
    HarnessClient,
    close,
    initialize_params,
    running,
    server_config,
    wait_watching,
)
from tests.support import lsp_tee

MEMORY_KB = 3_000_000  # ~3 GB of address space: ample for the harness, far from /dev/zero's
TIMEOUT_S = 60


def limited(argv: list[str]) -> list[str]:
    return ["sh", "-c", f'ulimit -v {MEMORY_KB} && exec "$@"', "sh", *argv]


def harness_run(
    ws: Path, tmp: Path, turns: list[dict[str, Any]]
) -> subprocess.CompletedProcess[str]:
    script = tmp / "script.json"
    script.write_text(json.dumps({"turns": turns}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env["XDG_CONFIG_HOME"] = str(tmp / "config")
    argv = [sys.executable, "-m", "harness", "run", "look", "-w", str(ws), "--script", str(script)]
    return subprocess.run(
        limited([*argv, "--store", str(tmp / "s.db"), "--json"]),
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip


def make(kind: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "huge":
        path.write_text("# " + "x" * (3 * 1024 * 1024) + "\n")
    elif kind == "directory":
        path.mkdir()


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "huge", "directory"])
def test_a_policy_file_that_is_not_a_small_regular_file_is_refused(
    tmp_path: Path, kind: str
) -> None:
    ws = tmp_path / "ws"
    make(kind, ws / ".harness" / "policy.toml")
    done = harness_run(ws, tmp_path, [{"content": "done"}])
    assert done.returncode == 2, done.stderr
    policy = ws / ".harness" / "policy.toml"
    assert f"policy file {policy}" in done.stderr
    assert ("cannot be read: it is" in done.stderr) or (
        "bytes; a policy file is at most" in done.stderr
    )


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "huge"])
def test_a_gitignore_that_never_ends_does_not_stop_the_tools(tmp_path: Path, kind: str) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("needle = 1\n")
    make(kind, ws / ".gitignore")
    make(kind, ws / "src" / ".gitignore")
    calls = [{"name": "list_dir", "arguments": {"path": "src"}}]
    if kind != "fifo":  # rg opens a FIFO .gitignore and waits: grep's 60 s limit ends it
        calls += [
            {"name": "grep", "arguments": {"pattern": "needle"}},
            {"name": "find", "arguments": {"name_glob": "*.py"}},
        ]
    done = harness_run(ws, tmp_path, [{"tool_calls": calls}, {"content": "done"}])
    assert done.returncode == 0, done.stderr[-3000:]
    shown = subprocess.run(
        [sys.executable, "-m", "harness", "trace", "step", "1", "1", "--store",
         str(tmp_path / "s.db"), "--json"],
        capture_output=True, text=True, cwd=ROOT, timeout=TIMEOUT_S, check=True,
    )  # fmt: skip
    result = json.loads(shown.stdout)["result"]
    assert "[list src]\n.gitignore\na.py" in result, result
    for tool in ("[grep needle]", "[find *.py]") if kind != "fifo" else ():
        answer = result.split(tool, 1)[1].split("\n[", 1)[0]
        assert ("src/a.py" in answer) or ("ripgrep failed" in answer), (tool, answer)


RECORD = SCRATCH / "sweep-repository-record"


@pytest_asyncio.fixture(name="limited_server")
async def limited_server_fixture() -> AsyncIterator[HarnessClient]:
    shutil.rmtree(RECORD, ignore_errors=True)
    config = server_config(command=lsp_tee.command(RECORD, limited(SERVER_COMMAND)))
    async with running(config) as client:
        yield client


async def test_the_server_watches_a_folder_whose_gitignore_never_ends(
    limited_server: HarnessClient, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    make("dev-zero", ws / ".gitignore")
    (ws / "a.py").write_text("x = 1\n")
    await limited_server.initialize_session(
        initialize_params([ws], {"storePath": str(tmp_path / "s.db")})
    )
    await wait_watching(limited_server)
    (ws / "b.py").write_text("y = 2\n")  # the watcher's filter reads the ignore rules
    status = await limited_server.command("harness.status")
    assert status["workspaceFolders"][0]["watching"] is True
    await asyncio.sleep(0.5)  # the watcher's debounce: give its filter the change
    await limited_server.command("harness.status")
    await close(limited_server)
    stderr = (RECORD / "stderr.bin").read_bytes()
    assert b"MemoryError" not in stderr and b"Traceback" not in stderr, stderr[-2000:]
