"""ACP (§13, §15): the MCP servers a client gives in ``session/new.mcpServers`` (stdio) are
that session's tools — offered, asked through ``session/request_permission`` with server,
tool and arguments, called, and stopped with the prompt."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from acp import PROTOCOL_VERSION, text_block
from acp.schema import McpServerStdio, PermissionOption, ToolCallUpdate

from tests.e2e.acp_client import RecordingClient, acp_agent
from tests.support.fake_llm import FakeLLM
from tests.support.procs import alive_with
from tests.support.scripted_turns import call, turn

pytestmark = pytest.mark.timeout(120)

KEY = "sk-acp-mcp-" + "k3y" * 12


async def _allow(
    session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
) -> str | None:
    return next(o.option_id for o in options if o.kind == "allow_once")


async def test_session_new_mcp_servers_are_the_sessions_tools(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake = fake_llm(
        [turn(call("mcp__clock__get_current_time", timezone="Europe/Paris")), {"content": "ok"}]
    )
    client = RecordingClient()
    client.answer = _allow
    command = str(Path(sys.executable).parent / "mcp-server-time")
    server = McpServerStdio(name="clock", command=command, args=["--local-timezone", "UTC"], env=[])
    async with acp_agent(client, fake.url, tmp_path / "s" / "h.db", HARNESS_API_KEY=KEY) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(ws), mcp_servers=[server])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("time?")])
        assert done.stop_reason == "end_turn"
        assert alive_with(command) == []  # stopped with the prompt
    names = [t["function"]["name"] for t in fake.requests[0]["tools"]]
    assert {"mcp__clock__convert_time", "mcp__clock__get_current_time"} <= set(names)
    asked = json.dumps(client.permissions)
    assert "clock" in asked and "get_current_time" in asked and "Europe/Paris" in asked
    assert "Europe/Paris" in json.dumps(fake.requests[1]) and '\\"datetime\\"' in json.dumps(
        fake.requests[1]
    )
