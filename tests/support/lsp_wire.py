"""The real language server over raw pipes, for tests that must send what no LSP client
library would (broken headers, bad JSON, batches) or see every byte the server sends.

    async with WireServer(env) as server:
        await server.initialize(root, options)
        answer = await server.request("workspace/executeCommand", {...})
        server.send_raw(b"Content-Length: x\\r\\n\\r\\n{}")

Every frame the server writes is decoded into ``server.received`` (and its raw bytes kept in
``server.raw``); stderr is collected in ``server.stderr``. Requests from the server are
answered as a cooperative editor would (progress created, approvals allowed, configuration
pulls answered with ``configuration``). ``request`` waits for the answer with a hard timeout,
so a wedged connection fails the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from tests.support.waiting import wait_until

SERVER_COMMAND = [sys.executable, "-m", "server"]
ANSWER_S = 30.0


def frame(body: bytes | str | dict[str, Any] | list[Any]) -> bytes:
    """``Content-Length`` framing of a body (a message is JSON-encoded first)."""
    if isinstance(body, dict | list):
        body = json.dumps(body)
    data = body.encode() if isinstance(body, str) else body
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def rss_kib(pid: int) -> int:
    """The resident set size of process ``pid`` (Linux ``/proc``), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise LookupError(f"no VmRSS for process {pid}")


class WireServer:
    def __init__(self, env: dict[str, str], *, approve: str = "Allow") -> None:
        self.env = env
        self.approve = approve
        self.configuration: Any = None
        self.received: list[dict[str, Any]] = []
        self.raw = bytearray()
        self.stderr = bytearray()
        self.proc: asyncio.subprocess.Process | None = None
        self._ids = itertools.count(1)
        self._tick = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    async def __aenter__(self) -> Self:
        self.proc = await asyncio.create_subprocess_exec(
            *SERVER_COMMAND,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self.env,
        )
        self._tasks = [
            asyncio.create_task(self._read_frames()),
            asyncio.create_task(self._read_stderr()),
        ]
        return self

    async def __aexit__(self, *exc: object) -> None:
        proc = self.proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.request("shutdown"), 10)
                self.notify("exit")
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        for task in self._tasks:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 5)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    # -- sending -------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(data)

    def send(self, message: dict[str, Any] | list[Any]) -> None:
        self.send_raw(frame(message))

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def next_id(self) -> int:
        return next(self._ids)

    async def request(self, method: str, params: Any = None, *, within_s: float = ANSWER_S) -> Any:
        """The result of a request; ``JsonRpcError`` for an error answer."""
        answer = await self.call({"method": method, "params": params}, within_s=within_s)
        if "error" in answer:
            raise JsonRpcError(answer["error"])
        return answer.get("result")

    async def call(self, message: dict[str, Any], *, within_s: float = ANSWER_S) -> dict[str, Any]:
        """Send ``message`` with a fresh id (unless it has one) and return the whole answer."""
        message = {"jsonrpc": "2.0", **message}
        if message.get("params") is None:
            message.pop("params", None)
        message.setdefault("id", self.next_id())
        self.send(message)
        return await self.answer_to(message["id"], within_s=within_s)

    async def answer_to(self, msg_id: Any, *, within_s: float = ANSWER_S) -> dict[str, Any]:
        found: dict[str, Any] = await self.wait_for(
            lambda: next((m for m in self.received if _answers(m, msg_id)), None), within_s
        )
        return found

    async def command(self, name: str, *arguments: Any) -> Any:
        return await self.request(
            "workspace/executeCommand", {"command": name, "arguments": list(arguments)}
        )

    async def initialize(
        self, folders: list[Path], options: Any = None, *, pull_settings: bool = False
    ) -> Any:
        """``initialize`` + ``initialized``; ``pull_settings``: the client declares
        ``workspace/configuration`` (it answers with ``self.configuration``)."""
        capabilities: dict[str, Any] = {"window": {"workDoneProgress": True}}
        if pull_settings:
            capabilities["workspace"] = {"configuration": True}
        params = {
            "processId": os.getpid(),
            "rootUri": folders[0].as_uri() if folders else None,
            "workspaceFolders": [{"uri": f.as_uri(), "name": f.name} for f in folders] or None,
            "capabilities": capabilities,
            "initializationOptions": options,
        }
        result = await self.request("initialize", params)
        self.notify("initialized", {})
        return result

    # -- receiving -----------------------------------------------------------------------

    async def wait_for(self, predicate: Callable[[], Any], within_s: float = ANSWER_S) -> Any:
        return await wait_until(predicate, self._tick, within_s)

    def notifications(self, method: str) -> list[Any]:
        return [
            m.get("params") for m in self.received if m.get("method") == method and "id" not in m
        ]

    def finished(self) -> list[dict[str, Any]]:
        return self.notifications("harness/runFinished")

    async def wait_finished(self, run_id: int, within_s: float = ANSWER_S) -> dict[str, Any]:
        found: dict[str, Any] = await self.wait_for(
            lambda: next((f for f in self.finished() if f["runId"] == run_id), None), within_s
        )
        return found

    def shown(self) -> list[str]:
        return [p["message"] for p in self.notifications("window/showMessage")]

    async def _read_frames(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stdout = self.proc.stdout
        while True:
            length = None
            while True:
                line = await stdout.readline()
                if not line:
                    return
                self.raw += line
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            assert length is not None, "the server sent a frame without Content-Length"
            body = await stdout.readexactly(length)
            self.raw += body
            message = json.loads(body)
            self.received.append(message)
            self._answer_server_request(message)
            self._tick.set()

    async def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while chunk := await self.proc.stderr.read(65536):
            self.stderr += chunk

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        if "id" not in message or "method" not in message:
            return
        method = message["method"]
        result: Any = None
        if method == "window/showMessageRequest":
            result = {"title": self.approve}
        elif method == "workspace/configuration":
            result = [self.configuration for _ in message["params"]["items"]]
        with contextlib.suppress(Exception):  # the server may be gone
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})


class JsonRpcError(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.message = str(error.get("message"))
        self.data = error.get("data")


def _answers(message: dict[str, Any], msg_id: Any) -> bool:
    return (
        "method" not in message
        and message.get("id") == msg_id
        and ("result" in message or "error" in message)
    )


__all__ = ["SERVER_COMMAND", "JsonRpcError", "WireServer", "frame", "rss_kib"]
