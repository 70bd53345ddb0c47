"""MCP servers through the real language server (§15, §7): the user's server (the real
``mcp-server-time``) listed by ``harness.status``, its tool offered to the model with its
prefixed name, asked through the approval (Allow), called, its answer in the next request;
and the server stopped with the run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

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

TIME = str(Path(sys.executable).parent / "mcp-server-time")
HOME = SCRATCH / "mcp-home"
(HOME / "harness").mkdir(parents=True, exist_ok=True)
(HOME / "harness" / "policy.toml").write_text(
    f'[mcp.servers.time]\ncommand = {json.dumps(TIME)}\nargs = ["--local-timezone", "UTC"]\n'
)

mcp_fixture = started_server("mcp_server", XDG_CONFIG_HOME=str(HOME))


async def test_the_users_mcp_server_through_the_language_server(
    mcp_server: HarnessClient, ws: Path, fake: FakeLLM, store: Path
) -> None:
    client = mcp_server
    await client.initialize_session(initialize_params([ws], settings(fake, store)))
    status = await client.command("harness.status")
    (row,) = status["mcp"][str(ws.resolve())]
    assert row["name"] == "time" and row["source"] == "user" and TIME in row["note"]
    fake.add_turns(
        turn(call("mcp__time__get_current_time", timezone="America/New_York")),
        {"content": "It is late."},
    )
    started = await client.command("harness.run", {"goal": "What time is it?"})
    finished = await client.wait_finished(started["runId"])
    assert finished["outcome"] == "finished" and finished["failed"] == 0
    names = [t["function"]["name"] for t in fake.requests[0]["tools"]]
    assert "mcp__time__get_current_time" in names
    assert "America/New_York" in json.dumps(fake.requests[1]["messages"][-2:])
    assert alive_with(TIME) == []
