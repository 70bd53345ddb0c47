"""One MCP server's connection on the official ``mcp`` SDK (imported here, lazily, only
when a server is configured): started over stdio (the §6.6 environment plus the config's
``env``; a workspace server inside the sandbox) or streamable HTTP, a connect timeout, a
call timeout, one restart per run, then "gone".

The SDK's ``Client`` is an async context manager whose scopes belong to the task that
entered it, so each connection has an owner task that enters it, holds it open until
``close``, and leaves it: calls are made from any task of the same loop. A stdio server
runs in its own process group (the SDK kills the group when it stops) and, on Linux,
with a parent-death signal (or bwrap's ``--die-with-parent``), so a harness that crashes
leaves nothing running."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.mcp.config import CALL_TIMEOUT_S, CONNECT_TIMEOUT_S, ServerConfig, Source
from harness.mcp.stderr import Tail

if TYPE_CHECKING:
    from mcp import Client
    from mcp.types import CallToolResult, Tool

MAX_RESTARTS = 1
LIST_CHANGED = "notifications/tools/list_changed"
# Starts the server with a parent-death signal: it is killed when the harness dies.
_LAUNCH = (
    "import ctypes,os,signal,sys\n"
    "ctypes.CDLL(None,use_errno=True).prctl(1,signal.SIGKILL)\n"
    "os.getppid()==int(sys.argv[1]) or os._exit(1)\n"
    "os.execvp(sys.argv[2],sys.argv[2:])"
)


class State(StrEnum):
    STOPPED = "stopped"
    RUNNING = "running"
    FAILED = "failed"  # could not start; why is in ``error``
    GONE = "gone"  # died after its restart


class McpFailure(Exception):
    """A server could not be reached or did not answer; the message says why."""


@dataclass
class Launch:
    """How a server's process starts: its environment and, for a workspace server, the
    sandbox (``root``: the workspace; ``network`` as ``[exec] network``)."""

    env: Mapping[str, str]
    root: Path
    sandbox: bool = False
    network: bool = True
    connect_timeout_s: float = CONNECT_TIMEOUT_S
    call_timeout_s: float = CALL_TIMEOUT_S


@dataclass
class Connection:
    """One server for one run (or one workspace's runs, in the language server)."""

    config: ServerConfig
    launch: Launch
    state: State = State.STOPPED
    error: str = ""
    restarts: int = 0
    _client: Client | None = None
    _owner: asyncio.Task[None] | None = None
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _tail: Tail | None = None
    # Each ``notifications/tools/list_changed`` heard (a restart counts as one), and how
    # many had come when the last listing was answered: that listing reflects those.
    notified: int = 0
    listed_at: int = 0
    heard: asyncio.Event = field(default_factory=asyncio.Event)  # set at each of them

    async def start(self) -> None:
        """Connect (``McpFailure`` naming why, within the connect timeout)."""
        self._stop = asyncio.Event()
        ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        self._owner = asyncio.create_task(self._own(ready), name=f"mcp {self.config.name}")
        try:
            self._client = await asyncio.wait_for(
                asyncio.shield(ready), self.launch.connect_timeout_s
            )
        except TimeoutError:
            await self._abandon()
            self._failed(f"did not answer `initialize` within {self._startup_words()}")
        except Exception as exc:
            await self._abandon()
            self._failed(f"could not start: {_words(exc)}")
        self.state = State.RUNNING

    def _startup_words(self) -> str:
        """The connect timeout, and for a user's server the key that sets it."""
        within = f"{self.launch.connect_timeout_s:g} s"
        if self.config.source is not Source.USER:
            return within
        return f"{within} ([mcp.servers.{self.config.name}] startup_timeout_s)"

    def _failed(self, why: str) -> None:
        tail = self._tail.text() if self._tail is not None else ""
        self.state = State.FAILED
        self.error = why + (f" (its stderr: {tail})" if tail else "")
        raise McpFailure(self.error)

    async def _own(self, ready: asyncio.Future[Client]) -> None:
        from mcp import Client

        try:
            self._tail = Tail()
            server, on_message = self._server(), self._on_message
            async with Client(server, mode="legacy", message_handler=on_message) as client:
                self._tail.started()
                ready.set_result(client)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else McpFailure("stopped"))
                ready.exception()  # retrieved: after a connect timeout nobody awaits it
            if not isinstance(exc, Exception):
                raise
        finally:
            if self._tail is not None:
                self._tail.started()

    async def _on_message(self, message: object) -> None:
        """Counts the server's tools/list_changed (the SDK calls this in the order the
        server's messages came); other notifications are dropped."""
        if getattr(message, "method", None) == LIST_CHANGED:
            self.notified += 1
            self.heard.set()

    def _server(self) -> Any:
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        config = self.config
        if config.url is not None:
            return _http(config)
        argv = self._argv()
        params = StdioServerParameters(
            command=argv[0],
            args=argv[1:],
            env={**self.launch.env, **config.env},
            cwd=config.cwd or str(self.launch.root),
        )
        return stdio_client(params, errlog=self._tail.file if self._tail else sys.stderr)

    def _argv(self) -> list[str]:
        """The command line: in the sandbox (a workspace server), else with a parent-death
        signal (Linux)."""
        command = [self.config.command or "", *self.config.args]
        if self.launch.sandbox:
            from harness.mcp.boxed import boxed

            return boxed(command, self.launch.root, self.launch.network, self.launch.env)
        if sys.platform.startswith("linux"):
            import os

            program = shutil.which(command[0], path=self.launch.env.get("PATH")) or command[0]
            return [sys.executable, "-S", "-c", _LAUNCH, str(os.getpid()), program, *command[1:]]
        return command

    async def _abandon(self) -> None:
        self._stop.set()
        if self._owner is not None and not self._owner.done():
            self._owner.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self._owner, 5)
        self._client = None

    def alive(self) -> bool:
        return self._client is not None and self._owner is not None and not self._owner.done()

    async def list_tools(self) -> list[Tool]:
        """Every page of the server's tools, read anew (not from the SDK's cache)."""
        client = await self._ready()
        tools: list[Tool] = []
        cursor: str | None = None
        for _ in range(100):  # a server that pages forever is cut at 100 pages
            page = await asyncio.wait_for(
                client.list_tools(cursor=cursor, cache_mode="refresh"), self.launch.call_timeout_s
            )
            tools += page.tools
            cursor = page.next_cursor
            if not cursor:
                break
        self.listed_at = self.notified
        return tools

    async def call(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        """The tool's result; ``McpFailure`` when the server is gone or does not answer."""
        client = await self._ready()
        timeout = self.launch.call_timeout_s
        try:
            return await asyncio.wait_for(
                client.call_tool(name, arguments, read_timeout_seconds=timeout), timeout + 1
            )
        except TimeoutError:
            raise McpFailure(_late(timeout)) from None
        except Exception as exc:
            if "timed out" in str(exc).lower():  # the SDK's own read timeout
                raise McpFailure(_late(timeout)) from None
            if not self.alive() or _closed(exc):
                self._client = None
                raise McpFailure(self._died(exc)) from None
            raise McpFailure(_words(exc)) from None

    def _died(self, exc: BaseException) -> str:
        tail = self._tail.text() if self._tail is not None else ""
        said = f" (its stderr: {tail})" if tail else ""
        if self.restarts >= MAX_RESTARTS:
            self.state = State.GONE
            return f"the server died again and is gone for this run{said}"
        return f"the server died ({_words(exc)}){said}; it is restarted at the next call"

    async def _ready(self) -> Client:
        if self._client is not None and self.alive():
            return self._client
        if self.state is State.GONE or self.restarts >= MAX_RESTARTS:
            self.state = State.GONE
            raise McpFailure("the server died and was restarted once; it is gone for this run")
        self.restarts += 1
        await self._abandon()
        await self.start()
        self.notified += 1  # a new process: its tools may not be the ones listed
        assert self._client is not None
        return self._client

    async def close(self) -> None:
        """Stop the server (the SDK ends its process group); idempotent."""
        await self._abandon()
        if self.state is State.RUNNING:
            self.state = State.STOPPED


def _http(config: ServerConfig) -> Any:
    """Streamable HTTP, with the config's headers."""
    if not config.headers:
        return config.url
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    client = httpx2.AsyncClient(headers=dict(config.headers))
    return streamable_http_client(config.url or "", http_client=client)


def _late(timeout: float) -> str:
    return f"no answer within {timeout:g} s ([mcp] call_timeout_s); the call was abandoned"


def _closed(exc: BaseException) -> bool:
    text = f"{type(exc).__name__} {exc}".lower()
    return any(w in text for w in ("closed", "broken", "connection", "endofstream"))


def _words(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _words(exc.exceptions[0])
    text = str(exc).strip() or type(exc).__name__
    return text[:500]


__all__ = ["LIST_CHANGED", "MAX_RESTARTS", "Connection", "Launch", "McpFailure", "Source", "State"]
