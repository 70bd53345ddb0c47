"""An MCP server that changes its tools mid-run, through the real language server (§15,
§7): the fixture server ``changing`` withdraws ``echo`` and adds ``fresh`` when ``swap`` is
called. The run keeps the tools it started with (every request offers the same schemas), a
call to ``echo`` is a failed observation saying the new list applies from the next run, the
user is shown one warning, the server is stopped with the run, and the next run — a new
server process, as each run's are — offers ``fresh``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.e2e.lsp import (
    SCRATCH,
    HarnessClient,
    call,
    initialize_params,
    settings,
    started_server,
    turn,
)
from tests.support.fake_llm import FakeLLM
from tests.support.procs import alive_with

ROOT = Path(__file__).resolve().parents[2]
HOME = SCRATCH / "mcp-changing-home"
MARKER = SCRATCH / "mcp-changing-marker"  # its tools are kept in MARKER.tools
(HOME / "harness").mkdir(parents=True, exist_ok=True)
(HOME / "harness" / "policy.toml").write_text(
    '[[rules]]\nact = "mcp"\neffect = "allow"\nglob = "ch/*"\n\n'
    f"[mcp.servers.ch]\ncommand = {json.dumps(sys.executable)}\n"
    f'args = ["-m", "tests.support.mcp_hostile", "changing", {json.dumps(str(MARKER))}]\n'
    f"cwd = {json.dumps(str(ROOT))}\n"
)

changing_fixture = started_server("changing_server", XDG_CONFIG_HOME=str(HOME))


def _mcp(request: dict[str, Any]) -> list[str]:
    return [n for t in request["tools"] if (n := t["function"]["name"]).startswith("mcp__")]


async def test_a_run_keeps_its_tools_and_the_next_run_lists_the_new_ones(
    changing_server: HarnessClient, ws: Path, fake: FakeLLM, store: Path
) -> None:
    client = changing_server
    await client.initialize_session(initialize_params([ws], settings(fake, store)))
    fake.add_turns(
        turn(call("mcp__ch__swap", text="go")),
        turn(call("mcp__ch__echo", text="late")),
        {"content": "done"},
    )
    started = await client.command("harness.run", {"goal": "swap the tools"})
    finished = await client.wait_finished(started["runId"])
    assert finished["outcome"] == "finished" and finished["failed"] == 1
    assert _mcp(fake.requests[0]) == ["mcp__ch__echo", "mcp__ch__swap"]
    assert fake.requests[1]["tools"] == fake.requests[0]["tools"]
    assert fake.requests[2]["tools"] == fake.requests[0]["tools"]
    said = json.dumps(fake.requests[2]["messages"][-2:])
    assert "withdrew `echo` during this run" in said and "applies from the next run" in said
    told = [w for w in client.warnings() if "MCP server `ch` changed its tools" in w]
    assert len(told) == 1 and "added fresh; withdrew echo" in told[0]
    assert alive_with(str(MARKER)) == []  # stopped with the run
    fake.add_turns({"content": "new tools"})
    again = await client.command("harness.run", {"goal": "which tools now?"})
    assert (await client.wait_finished(again["runId"]))["outcome"] == "finished"
    assert _mcp(fake.requests[3]) == ["mcp__ch__fresh", "mcp__ch__swap"]
