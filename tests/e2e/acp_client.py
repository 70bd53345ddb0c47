"""A real ACP client (the ``agent-client-protocol`` package's client side) driving
``harness acp`` in a subprocess, for the end-to-end tests: it records every
``session/update``, answers ``session/request_permission`` with a chosen option (or lets the
test act first), and serves ``fs/read_text_file`` from buffers the test says the editor holds.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp import RequestError, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    ToolCallUpdate,
    WriteTextFileResponse,
)

from tests.e2e.lsp import server_env

Answer = Callable[[str, ToolCallUpdate, list[PermissionOption]], Awaitable[str | None]]


class RecordingClient:
    """The editor's side: ``updates`` in the order they came (plain JSON, camelCase, as on
    the wire), ``permissions`` asked, ``buffers`` the unsaved texts the editor holds."""

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.permissions: list[dict[str, Any]] = []
        self.buffers: dict[Path, str] = {}
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []  # (path, content) written for the agent
        self.answer: Answer = _reject
        self.exit_code: int | None = None  # the agent's, once it is gone

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update.model_dump(mode="json", by_alias=True, exclude_none=True))

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **_: Any
    ) -> RequestPermissionResponse:
        self.permissions.append(
            {
                "toolCall": tool_call.model_dump(mode="json", by_alias=True, exclude_none=True),
                "options": [o.model_dump(mode="json", by_alias=True) for o in options],
            }
        )
        chosen = await self.answer(session_id, tool_call, options)
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen)
        )

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **_: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        held = self.buffers.get(Path(path))
        if held is not None:
            return ReadTextFileResponse(content=held)
        try:
            return ReadTextFileResponse(content=Path(path).read_text())
        except OSError as exc:
            raise RequestError.resource_not_found(path) from exc

    async def write_text_file(
        self, session_id: str, path: str, content: str, **_: Any
    ) -> WriteTextFileResponse:
        """As an editor does: the buffer (if held) and the disk take the agent's text."""
        self.writes.append((path, content))
        self.buffers.pop(Path(path), None)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(content)
        return WriteTextFileResponse()

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [u for u in self.updates if u["sessionUpdate"] == kind]

    def calls(self) -> dict[str, dict[str, Any]]:
        """Each tool call by id: its start merged with every later update."""
        out: dict[str, dict[str, Any]] = {}
        for u in self.updates:
            if u["sessionUpdate"] in ("tool_call", "tool_call_update"):
                merged = out.setdefault(u["toolCallId"], {})
                merged.update({k: v for k, v in u.items() if k != "sessionUpdate"})
        return out

    def said(self) -> str:
        return "".join(u["content"]["text"] for u in self.of_kind("agent_message_chunk"))


async def _reject(
    session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
) -> str | None:
    return next(o.option_id for o in options if o.kind == "reject_once")


@asynccontextmanager
async def acp_agent(
    client: RecordingClient, url: str, store: Path, **env: str
) -> AsyncIterator[ClientSideConnection]:
    """``harness acp`` on stdio with ``url`` (a fake OpenAI-wire server) as the model."""
    argv = ["-m", "harness", "acp", "--provider", "openai", "--base-url", url, "--model", "m"]
    store.parent.mkdir(parents=True, exist_ok=True)
    with (store.parent / "acp-stderr.log").open("ab") as log:  # the agent's log, for failures
        async with spawn_agent_process(
            client,  # type: ignore[arg-type]
            sys.executable,
            *argv,
            "--store",
            str(store),
            env=server_env(**env),
            # it must end by itself once its input closes (no terminate within this)
            transport_kwargs={"stderr": log, "shutdown_timeout": 30.0},
        ) as (conn, process):
            try:
                yield conn
            finally:
                await conn.close()
        client.exit_code = process.returncode
