"""``harness acp`` (§13) driven by a real ACP client — the ``agent-client-protocol``
package's client side — against the fake model: one agent process walks a whole session
(initialize, a prompt that reads and edits, a follow-up whose refusals show as failed tool
calls, a permission answered reject, cancel mid-turn), and a second process replays the
session with ``session/load``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, resource_link_block, text_block
from acp.client.connection import ClientSideConnection
from acp.schema import ClientCapabilities, FileSystemCapabilities, PermissionOption, ToolCallUpdate

from tests.e2e.acp_client import RecordingClient, acp_agent
from tests.support.fake_llm import FakeLLM
from tests.support.scripted_turns import call, turn

pytestmark = pytest.mark.timeout(120)


KEY = "sk-acp-test-" + "k3y" * 12  # the API key: redacted from everything sent (§6.7)
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
    {"content": f"Some of that was refused. By the way, your key is {KEY}."},
    # prompt 3: a command that asks; the user cancels the turn at the question
    turn(call("exec", argv=["touch", "made-by-exec"])),
    # prompt 4: a command that asks; the editor goes away before answering
    turn(call("exec", argv=["touch", "never-made"])),
]


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("def add(a, b):\n    return a - b  # BUG\n")
    (ws / "src" / "b.py").write_text("B_VERSION = 1\n")
    (ws / ".env").write_text("TOKEN=do-not-read-me\n")
    (tmp_path / "outside.txt").write_text("outside the workspace\n")
    # the repository's policy would run commands unasked: not trusted, it is ignored (§6.3)
    (ws / ".harness").mkdir()
    (ws / ".harness" / "policy.toml").write_text('[defaults]\nexec = "allow"\n')
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
    async with acp_agent(client, fake.url, store, HARNESS_API_KEY=KEY) as conn:
        session_id = await start(conn, ws)
        await read_and_edit(conn, client, session_id, ws, fake)
        await follow_up_refused(conn, client, session_id, ws, fake)
        await cancelled_at_a_question(conn, client, session_id, ws)
        pending = await left_at_a_question(conn, client, session_id)
    pending.cancel()
    assert client.exit_code == 0, "the agent stopped its run and ended by itself"
    assert not (ws / "never-made").exists()
    replay = RecordingClient()
    async with acp_agent(replay, fake.url, store) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        await conn.load_session(cwd=str(ws), session_id=session_id, mcp_servers=[])
    replays(replay)


async def read_and_edit(
    conn: ClientSideConnection, client: RecordingClient, session_id: str, ws: Path, fake: FakeLLM
) -> None:
    attached = resource_link_block("b.py", (ws / "src" / "b.py").as_uri())
    done = await conn.prompt(session_id=session_id, prompt=[text_block(FIRST_GOAL), attached])
    assert done.stop_reason == "end_turn"
    # the attached file was read for the model at step 0 (§11 editor context)
    assert "B_VERSION = 1" in json.dumps(fake.requests[0])
    calls = [c for c in client.calls().values() if c["title"] != "read src/b.py"]
    read, edit = calls
    assert read["kind"] == "read" and read["status"] == "completed"
    assert read["locations"] == [{"path": str(ws / "src" / "a.py")}]
    assert edit["kind"] == "edit" and edit["status"] == "completed"
    assert "src/a.py" in edit["title"]
    diff = next(c for c in edit["content"] if c["type"] == "diff")
    assert diff["path"] == str(ws / "src" / "a.py")
    assert "a - b" in diff["oldText"] and "a + b" in diff["newText"]
    assert FIRST_WORDS in client.said()
    budget = client.of_kind("usage_update")[-1]  # the last request against its ceiling
    assert budget["used"] > 0 and budget["size"] >= budget["used"]
    assert budget["_meta"]["harness"]["step"] == 3 and budget["_meta"]["harness"]["spentTokens"]
    assert 'Ignored: [defaults] exec = "allow"' in client.said()  # told, once per run
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
    assert "leaves the workspace" in text_of(outside), outside
    assert ".env" in text_of(secret) and "do-not-read-me" not in json.dumps(client.updates)
    assert "unsaved" in text_of(unsaved), unsaved
    assert "your key is" in client.said() and KEY[:12] not in json.dumps(client.updates)
    assert not (ws / ".vscode").exists(), "the rejected write never happened"
    assert (ws / "src" / "b.py").read_text() == "B_VERSION = 1\n"
    (asked,) = client.permissions
    assert {o["kind"] for o in asked["options"]} == {"allow_once", "allow_always", "reject_once"}
    assert asked["toolCall"]["toolCallId"] == ids[2]
    diff = next(c for c in asked["toolCall"]["content"] if c["type"] == "diff")
    assert diff["path"] == str(ws / ".vscode" / "settings.json") and diff["newText"] == "{}\n"
    # the follow-up carried the first exchange: its goal and the model's words
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
    asked = client.permissions[-1]["toolCall"]
    assert asked["kind"] == "execute"
    shown = asked["content"][0]["content"]["text"]
    assert "```\ntouch made-by-exec\n```" in shown, shown  # the whole command, as plain text
    (exec_call,) = client.calls().values()
    assert exec_call["kind"] == "execute" and exec_call["status"] == "failed"
    assert not (ws / "made-by-exec").exists()


async def left_at_a_question(
    conn: ClientSideConnection, client: RecordingClient, session_id: str
) -> asyncio.Task[Any]:
    """A prompt waiting at a question the editor never answers (it is closed instead)."""
    asked = asyncio.Event()

    async def never(sid: str, tool_call: ToolCallUpdate, options: list[PermissionOption]) -> None:
        asked.set()
        await asyncio.Event().wait()

    client.answer = never
    prompt = asyncio.create_task(conn.prompt(session_id=session_id, prompt=[text_block("Again")]))
    await asyncio.wait_for(asked.wait(), 60)
    return prompt


def replays(client: RecordingClient) -> None:
    said = [u["content"] for u in client.of_kind("user_message_chunk")]
    users = [c["text"] for c in said if c["type"] == "text"]
    assert users[:3] == [FIRST_GOAL, "Now tidy up", "Run it"]
    (link,) = [c for c in said if c["type"] == "resource_link"]  # the mention is kept
    assert link["name"] == "src/b.py" and link["uri"].endswith("/ws/src/b.py")
    assert said.index(link) == 1, "right after the words it came with"
    assert FIRST_WORDS in client.said()
    replayed = list(client.calls().values())
    assert [c["kind"] for c in replayed[:6]] == ["read", "edit", "read", "read", "edit", "edit"]
    assert [c["status"] for c in replayed[:6]] == ["completed"] * 2 + ["failed"] * 4


def text_of(tool_call: dict[str, Any]) -> str:
    return json.dumps(tool_call.get("content", []))
