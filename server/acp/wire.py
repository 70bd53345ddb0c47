"""ACP's framing on stdio, bounded (issue 30, finding 12): newline-delimited JSON-RPC as the
``acp`` package reads it, except that

- a line over ``MAX_LINE_BYTES`` (the language server's own body limit,
  ``server.lsp.wire.framing.MAX_BODY_BYTES``) is skipped as it arrives — never buffered whole —
  and answered with an "Invalid Request" error;
- a line that is not JSON is answered with a "Parse error", and JSON that is not an object
  (a bare number, a string, a batch array: batches are not supported) with an "Invalid
  Request", both with ``id: null`` — instead of the package's receive loop dying on it and
  taking every session with it.

The reader's own buffer is ``READ_CHUNK`` bytes: what waits in memory for a line is at most
the line (up to the limit) and one chunk.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from acp import Agent
from acp.agent.connection import AgentSideConnection
from acp.stdio import stdio_streams
from acp.task import MessageSender, TaskSupervisor

from server.lsp.wire.framing import MAX_BODY_BYTES

MAX_LINE_BYTES = MAX_BODY_BYTES
READ_CHUNK = 64 * 1024
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


class BoundedTransport:
    """The package's message-level ``Transport`` over stdio's byte streams, bounded."""

    def __init__(
        self, reader: asyncio.StreamReader, sender: MessageSender, max_line: int = MAX_LINE_BYTES
    ) -> None:
        self._reader, self._sender, self._max_line = reader, sender, max_line

    async def send(self, message: dict[str, Any]) -> None:
        await self._sender.send(message)

    async def close(self) -> None:
        await self._sender.close()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._line()
            if line is None:
                return None
            if isinstance(line, str):
                await self._refuse(INVALID_REQUEST, line)
                continue
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError as exc:  # not JSON (or not UTF-8)
                await self._refuse(PARSE_ERROR, f"Parse error: not JSON ({exc})"[:200])
                continue
            if isinstance(message, dict):
                return message
            what = "a batch (array)" if isinstance(message, list) else type(message).__name__
            said = f"Invalid Request: a message is a JSON object, not {what} (no batches)"
            await self._refuse(INVALID_REQUEST, said)

    async def _refuse(self, code: int, message: str) -> None:
        await self.send({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})

    async def _line(self) -> bytes | str | None:
        """The next line; a ``str`` (the error to answer) for a line over the limit, which
        is read to its end and dropped; None at the end of input."""
        chunks: list[bytes] = []
        size = 0
        while True:
            try:
                chunk = await self._reader.readuntil(b"\n")
                ended = True
            except asyncio.LimitOverrunError as exc:
                chunk, ended = await self._reader.readexactly(max(exc.consumed, 1)), False
            except asyncio.IncompleteReadError as exc:
                chunk, ended = exc.partial, True
                if not chunk and not chunks:
                    return None
            size += len(chunk)
            if size <= self._max_line:
                chunks.append(chunk)
            else:
                chunks.clear()  # over the limit: the rest is dropped as it comes
            if ended:
                if size > self._max_line:
                    return (
                        f"Invalid Request: a message is over {self._max_line:,} bytes"
                        f" ({size:,}); it was skipped"
                    )
                return b"".join(chunks)


async def serve_stdio(agent: Agent) -> None:
    """``acp.run_agent`` on stdio, with the bounded transport."""
    reader, writer = await stdio_streams(limit=READ_CHUNK)
    tasks = TaskSupervisor(source="harness.acp.wire")
    transport = BoundedTransport(reader, MessageSender(writer, tasks))
    conn = AgentSideConnection(agent, transport, listening=False)
    try:
        await conn.listen()
    finally:
        await asyncio.shield(conn.close())
        await tasks.shutdown()


__all__ = ["MAX_LINE_BYTES", "BoundedTransport", "serve_stdio"]
