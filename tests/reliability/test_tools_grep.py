"""grep cannot freeze anything (issue 11, seen 1; §6.1): ripgrep's regexes run in linear
time, in another process, which is killed the moment the call is cancelled."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
from pathlib import Path

from tests.conftest import MakeFakeLLM
from tests.e2e.cli import harness, run_args
from tests.e2e.lsp import (  # noqa: F401 -- pytest fixtures
    HarnessClient,
    call,
    client_fixture,
    fake_fixture,
    store_fixture,
    turn,
    ws_fixture,
)
from tests.support import figures
from tests.support.fake_llm import FakeLLM
from tests.support.procs import processes
from tests.support.tool_env import make_tool_env

EVIL = "a" * 40 + "b"


async def test_a_catastrophic_pattern_returns_at_once(tmp_path: Path) -> None:
    env = make_tool_env(tmp_path / "ws")
    env.write("evil.txt", f"{EVIL}\n" * 1000)
    result = await asyncio.wait_for(env.call("grep", pattern="(a+)+$"), 30)
    assert result.ok and result.text.splitlines()[1] == "no matches in 1 files"
    hits = await asyncio.wait_for(env.call("grep", pattern="(a+)+b$"), 30)
    assert hits.text.splitlines()[1] == f"evil.txt:1: {EVIL}"


def _rg_children() -> list[int]:
    me = os.getpid()
    return [p.pid for p in processes() if p.name == "rg" and p.ppid == me and p.live]


async def test_cancelling_a_grep_kills_ripgrep(tmp_path: Path) -> None:
    """A pattern with no literal for rg to skip ahead with, over 86 MB, keeps rg busy for
    about a second; as soon as an rg child of this process exists the call is cancelled,
    and then no rg child may remain."""
    env = make_tool_env(tmp_path / "ws")
    line = ("lorem ipsum dolor sit amet " * 8 + "\n").encode()
    for i in range(20):
        (env.root / f"f{i:02d}.txt").write_bytes(line * 20_000)  # 20 x 4.3 MB
    task = asyncio.create_task(env.call("grep", pattern=r"(\p{L}|\s){100}\d"))
    for _ in range(5_000):
        if _rg_children() or task.done():
            break
        await asyncio.sleep(0.001)
    assert not task.done(), "grep finished before its rg process was seen"
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert _rg_children() == []


def test_the_cli_finishes_a_run_that_greps_a_catastrophic_pattern(
    tmp_path: Path, fake_llm: MakeFakeLLM
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "evil.txt").write_text(f"{EVIL}\n")
    fake = fake_llm(
        [
            {"tool_calls": [{"name": "grep", "arguments": {"pattern": "(a+)+$"}}]},
            {"content": "Nothing matches."},
        ]
    )
    store = tmp_path / "s.db"
    out = harness(*run_args("find it", fake.url, ws, store), timeout=60)
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout)["outcome"] in ("finished", "success")
    conn = sqlite3.connect(store)
    (text,) = conn.execute("SELECT text FROM observations WHERE kind = 'grep'").fetchone()
    assert text.splitlines() == ["[grep (a+)+$]", "no matches in 1 files"]


async def test_the_server_keeps_answering_while_a_run_greps_a_catastrophic_pattern(
    client: HarnessClient, ws: Path, fake: FakeLLM
) -> None:
    """In the server, ``harness.status`` waited 28 s behind ``(a+)+$`` over 28 ``a``s (issue
    11, seen 1). Now every status request is answered while the run greps, and the run
    ends: both under hard timeouts, nothing measured in milliseconds."""
    (ws / "evil.txt").write_text(f"{EVIL}\n" * 1000)
    fake.add_turns(
        *(turn(call("grep", pattern="(a+)+$")) for _ in range(5)), {"content": "No match."}
    )
    started = await client.command("harness.run", {"goal": "find it", "maxSteps": 10})
    answered = 0
    for _ in range(5):
        status = await asyncio.wait_for(client.command("harness.status"), 10)
        answered += isinstance(status, dict)
    finished = await asyncio.wait_for(client.wait_finished(started["runId"]), 60)
    figures.record(
        "grep (a+)+$ in a server run",
        catastrophic_greps=5,
        status_calls_answered=answered,
        run_steps=finished["steps"],
    )
    assert answered == 5
    assert finished["outcome"] == "finished" and finished["steps"] == 6
