"""ACP's Stop always stops (issue 30, finding 5): two ``session/prompt``s of one session sent
together — the second is refused (one prompt at a time per session; it is not queued), and
Stop ends the one that runs; ``session/load`` of a session whose prompt is running attaches
to it, so Stop still reaches the run. The real ``harness acp`` and a real ACP client; the
model is the fake server, and the run is held at a question the test answers when it likes
(no sleeps). Every later turn would run a command the client approves: none runs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.client.connection import ClientSideConnection
from acp.schema import PermissionOption, ToolCallUpdate

from tests.e2e.acp_client import RecordingClient, acp_agent
from tests.support.fake_llm import FakeLLM
from tests.support.scripted_turns import call, turn

pytestmark = pytest.mark.timeout(120)

COMMANDS = [turn(call("exec", argv=["touch", f"ran-{n}"])) for n in range(10)]


class HeldClient(RecordingClient):
    """The first question waits for ``go`` and is answered "cancelled"; every later one is
    approved (a run that Stop missed would run its commands)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = asyncio.Event()
        self.go = asyncio.Event()
        self.answer = self._held

    async def _held(
        self, sid: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> str | None:
        if not self.asked.is_set():
            self.asked.set()
            await self.go.wait()
            return None
        return next(o.option_id for o in options if o.kind == "allow_once")


async def stop(conn: ClientSideConnection, client: HeldClient, session_id: str) -> None:
    """Stop at the held question, then let the client answer it as a cancelling client does."""
    await asyncio.wait_for(client.asked.wait(), 60)
    await conn.cancel(session_id=session_id)
    client.go.set()


def ran(ws: Path) -> list[str]:
    return sorted(p.name for p in ws.glob("ran-*"))


async def test_a_second_prompt_sent_together_is_refused_and_stop_stops_the_first(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake = fake_llm(COMMANDS)
    client = HeldClient()
    async with acp_agent(client, fake.url, tmp_path / "store" / "h.db") as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        prompts = [
            asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block(f"go {n}")]))
            for n in (1, 2)
        ]
        done, pending = await asyncio.wait(prompts, return_when=asyncio.FIRST_COMPLETED)
        [refused] = done
        with pytest.raises(RequestError) as refusal:
            refused.result()
        assert "a prompt of this session is running" in str(refusal.value.data)
        await stop(conn, client, sid)
        [running] = pending
        assert (await asyncio.wait_for(running, 60)).stop_reason == "cancelled"
    assert len(client.permissions) == 1 and ran(ws) == []


async def test_stop_reaches_a_running_prompt_after_the_session_is_loaded(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake = fake_llm([{"content": "Hello."}, *COMMANDS])
    client = HeldClient()
    async with acp_agent(client, fake.url, tmp_path / "store" / "h.db") as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        first = await conn.prompt(session_id=sid, prompt=[text_block("hi")])
        assert first.stop_reason == "end_turn"
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("go")]))
        await asyncio.wait_for(client.asked.wait(), 60)
        await conn.load_session(cwd=str(ws), session_id=sid, mcp_servers=[])  # the editor reloads
        await stop(conn, client, sid)
        assert (await asyncio.wait_for(running, 60)).stop_reason == "cancelled"
    assert len(client.permissions) == 1 and ran(ws) == []
