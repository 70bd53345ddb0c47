"""``harness acp`` (§13) driven by a real ACP client — the ``agent-client-protocol``
package's client side — against the fake model: one agent process walks a whole session
(initialize, a prompt that reads and edits, a follow-up whose refusals show as failed tool
calls, a permission answered reject, cancel mid-turn), and a second process replays the
session with ``session/load``."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, text_block
from acp.client.connection import ClientSideConnection
from acp.schema import ClientCapabilities, FileSystemCapabilities, PermissionOption, ToolCallUpdate

from harness.session import open_session
from tests.e2e.acp_client import RecordingClient, acp_agent
from tests.support.fake_llm import FakeLLM
from tests.support.scripted_turns import call, turn

pytestmark = pytest.mark.timeout(120)

FOLLOW_UPS = "conversation_id" in inspect.signature(open_session).parameters

FIRST_GOAL = "Fix add() in src/a.py"
FIRST_WORDS = "Fixed add(): it subtracted."

TURNS = [
    # prompt 1: read, edit, stop
    turn(call("read_file", path="src/a.py")),
    turn(call("edit_file", path="src/a.py", old="a - b", new="a + b")),
    {"content": FIRST_WORDS},
    # prompt 2 (a follow-up): outside the workspace, a secret, a write that asks (rejected),
    # a write of a file the editor holds modified
    turn(
        call("read_file", path="../outside.txt"),
        call("read_file", path=".env"),
        call("write_file", path=".vscode/settings.json", content="{}\n"),
        call("write_file", path="src/b.py", content="B_VERSION = 2\n"),
    ),
    {"content": "Some of that was refused."},
    # prompt 3: a command that asks; the user cancels the turn at the question
    turn(call("exec", argv=["touch", "made-by-exec"])),
]


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("def add(a, b):\n    return a - b  # BUG\n")
    (ws / "src" / "b.py").write_text("B_VERSION = 1\n")
    (ws / ".env").write_text("TOKEN=do-not-read-me\n")
    (tmp_path / "outside.txt").write_text("outside the workspace\n")
    return ws


async def start(conn: ClientSideConnection, ws: Path) -> str:
    caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True))
    init = await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps)
    assert init.protocol_version == PROTOCOL_VERSION
    agent = init.agent_capabilities
    assert agent is not None and agent.load_session is True
    assert agent.prompt_capabilities is not None
    assert agent.prompt_capabilities.embedded_context is True
    session = await conn.new_session(cwd=str(ws), mcp_servers=[])
    return session.session_id


async def test_an_acp_session_reads_edits_refuses_cancels_and_replays(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    ws = workspace(tmp_path)
    store = tmp_path / "store" / "harness.db"
    fake = fake_llm(TURNS)
    client = RecordingClient()
    async with acp_agent(client, fake.url, store) as conn:
        session_id = await start(conn, ws)
        await read_and_edit(conn, client, session_id, ws)
        await follow_up_refused(conn, client, session_id, ws, fake)
        await cancelled_at_a_question(conn, client, session_id, ws)
    replay = RecordingClient()
    async with acp_agent(replay, fake.url, store) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        await conn.load_session(cwd=str(ws), session_id=session_id, mcp_servers=[])
    replays(replay)


async def read_and_edit(
    conn: ClientSideConnection, client: RecordingClient, session_id: str, ws: Path
) -> None:
    done = await conn.prompt(session_id=session_id, prompt=[text_block(FIRST_GOAL)])
    assert done.stop_reason == "end_turn"
    calls = list(client.calls().values())
    read, edit = calls
    assert read["kind"] == "read" and read["status"] == "completed"
    assert read["locations"] == [{"path": str(ws / "src" / "a.py")}]
    assert edit["kind"] == "edit" and edit["status"] == "completed"
    assert "src/a.py" in edit["title"]
    diff = next(c for c in edit["content"] if c["type"] == "diff")
    assert diff["path"] == str(ws / "src" / "a.py")
    assert "a - b" in diff["oldText"] and "a + b" in diff["newText"]
    assert FIRST_WORDS in client.said()
    assert (ws / "src" / "a.py").read_text() == "def add(a, b):\n    return a + b  # BUG\n"
    # the editor was asked for its text of the file (an unsaved buffer is the user's)
    assert str(ws / "src" / "a.py") in client.reads


async def follow_up_refused(
    conn: ClientSideConnection, client: RecordingClient, session_id: str, ws: Path, fake: FakeLLM
) -> None:
    client.updates.clear()
    client.buffers[ws / "src" / "b.py"] = "B_VERSION = 1  # the user is typing\n"
    asked_before = len(fake.requests)
    done = await conn.prompt(session_id=session_id, prompt=[text_block("Now tidy up")])
    assert done.stop_reason == "end_turn"
    ids = list(client.calls())
    outside, secret, runs_later, unsaved = client.calls().values()
    for refused in (outside, secret, runs_later, unsaved):
        assert refused["status"] == "failed", refused
    assert "outside" in text_of(outside), outside
    assert ".env" in text_of(secret) and "do-not-read-me" not in json.dumps(client.updates)
    assert "unsaved" in text_of(unsaved), unsaved
    assert not (ws / ".vscode").exists(), "the rejected write never happened"
    assert (ws / "src" / "b.py").read_text() == "B_VERSION = 1\n"
    (asked,) = client.permissions
    assert {o["kind"] for o in asked["options"]} == {"allow_once", "allow_always", "reject_once"}
    assert asked["toolCall"]["toolCallId"] == ids[2]
    diff = next(c for c in asked["toolCall"]["content"] if c["type"] == "diff")
    assert diff["path"] == str(ws / ".vscode" / "settings.json") and diff["newText"] == "{}\n"
    # the follow-up carried the first exchange: its goal and the model's words
    if not FOLLOW_UPS:
        return  # until conversations (branch conv-core) are on main
    first_request = json.dumps(fake.requests[asked_before])
    assert FIRST_GOAL in first_request and FIRST_WORDS in first_request


async def cancelled_at_a_question(
    conn: ClientSideConnection, client: RecordingClient, session_id: str, ws: Path
) -> None:
    client.updates.clear()

    async def cancel_instead(
        sid: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> str | None:
        await conn.cancel(session_id=sid)
        return None  # ACP: a client that cancels answers its open questions "cancelled"

    client.answer = cancel_instead
    done = await conn.prompt(session_id=session_id, prompt=[text_block("Run it")])
    assert done.stop_reason == "cancelled"
    (exec_call,) = client.calls().values()
    assert exec_call["kind"] == "execute" and exec_call["status"] == "failed"
    assert not (ws / "made-by-exec").exists()


def replays(client: RecordingClient) -> None:
    users = [u["content"]["text"] for u in client.of_kind("user_message_chunk")]
    assert users[:3] == [FIRST_GOAL, "Now tidy up", "Run it"]
    assert FIRST_WORDS in client.said()


def text_of(tool_call: dict[str, Any]) -> str:
    return json.dumps(tool_call.get("content", []))
