"""The LSP base protocol and lifecycle through the real server over raw pipes (issue 11,
seen 6): a missing or non-numeric ``Content-Length`` is answered with an error and the
stream resynchronised, never a silent wedge; requests after ``shutdown`` get
InvalidRequest; ``exit`` ends the process with the LSP exit code even with a run, watchers
and a blocked command in flight; ``didChange`` for a document never opened is ignored with
a log line, not shown to the user as ``KeyError``."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.lsp import call, server_env, settings, turn, wait_watching
from tests.support.fake_llm import FakeLLM
from tests.support.lsp_wire import JsonRpcError, WireServer, frame

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
SERVER_NOT_INITIALIZED = -32002
EXIT_WITHIN_S = 30  # the server's own deadline is 10 s; this only keeps a failure from hanging

STATUS = {"command": "harness.status", "arguments": []}


def status_request(msg_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "workspace/executeCommand", "params": STATUS}


def parse_errors(server: WireServer) -> list[dict[str, Any]]:
    return [m for m in server.received if m.get("id") is None and "error" in m]


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(b'Content-Length: abc\r\n\r\n{"jsonrpc": "2.0", "method": "x"}', id="nan"),
        pytest.param(b'Content-Type: text/plain\r\n\r\n{"jsonrpc": "2.0"}', id="missing"),
        pytest.param(b"Content-Length:\r\n\r\n{}", id="empty"),
        pytest.param(b'{"jsonrpc": "2.0", "id": 77, "method": "shutdown"}', id="no-headers"),
        pytest.param(b"Content-Length: 99999999999999\r\n\r\n{}", id="absurd-length"),
        pytest.param(frame(b'{"jsonrpc": "2.0", "id": 78, "meth'), id="bad-json"),
        pytest.param(frame(b"\xff\xfe\x00garbage"), id="not-utf8"),
    ],
)
async def test_a_bad_frame_is_answered_and_the_stream_resynchronised(
    tmp_path: Path, fake: FakeLLM, store: Path, bad: bytes
) -> None:
    async with WireServer(server_env()) as server:
        await server.initialize([tmp_path], settings(fake, store))
        # The bad frame and a good request in one write, as a client's buffer would flush.
        server.send_raw(bad + frame(status_request(1001)))
        answer = await server.answer_to(1001)
        assert "result" in answer and answer["result"]["runs"] == []
        (error,) = parse_errors(server)
        assert error["error"]["code"] == PARSE_ERROR
        assert "jsonrpc" not in error["error"]["message"], "the input is not echoed"
        assert await server.command("harness.status"), "still serving"
        assert 77 not in [m.get("id") for m in server.received], "nothing ran from the junk"
    assert server.proc is not None and server.proc.returncode == 0


async def test_requests_before_initialize_and_after_shutdown_are_refused(
    tmp_path: Path, fake: FakeLLM, store: Path
) -> None:
    async with WireServer(server_env()) as server:
        with pytest.raises(JsonRpcError) as raised:
            await server.command("harness.status")
        assert raised.value.code == SERVER_NOT_INITIALIZED
        await server.initialize([tmp_path], settings(fake, store))
        assert await server.request("shutdown") is None
        for method, params in (("workspace/executeCommand", STATUS), ("shutdown", None)):
            with pytest.raises(JsonRpcError) as raised:
                await server.request(method, params)
            assert raised.value.code == INVALID_REQUEST
            assert "shutting down" in raised.value.message
        server.notify("exit")
        assert await asyncio.wait_for(server.proc.wait(), EXIT_WITHIN_S) == 0  # type: ignore[union-attr]


async def test_did_change_of_a_document_never_opened_is_ignored_with_a_log_line(
    tmp_path: Path, fake: FakeLLM, store: Path
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    uri = (tmp_path / "a.py").as_uri()
    async with WireServer(server_env(HARNESS_LOG_LEVEL="INFO")) as server:
        await server.initialize([tmp_path], settings(fake, store))
        await server.command("harness.status")  # initialized: logs reach the client now
        server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [{"text": "x = 2\n"}],
            },
        )
        await server.wait_for(
            lambda: any(
                "never opened" in p["message"] for p in server.notifications("window/logMessage")
            )
        )
        assert await server.command("harness.status")
        assert server.shown() == [], "the user is not shown a KeyError"
        assert b"KeyError" not in server.stderr


async def test_exit_ends_the_process_with_a_run_and_a_blocked_command_in_flight(
    tmp_path: Path, fake_llm: Any, store: Path
) -> None:
    # Seen: with runs blocked reading a pipe, the server did not exit on `exit`.
    root = tmp_path / "ws"
    root.mkdir()
    os.mkfifo(root / "pipe")
    fake = fake_llm([turn(call("read_file", path="pipe"), call("exec", argv=["cat", "pipe"]))])
    allow_exec = {"defaults": {"exec": "allow"}}
    async with WireServer(server_env()) as server:
        await server.initialize([root], settings(fake, store, policy=allow_exec))
        await wait_watching(server)
        run_id = (await server.command("harness.run", {"goal": "read the pipe"}))["runId"]
        await server.wait_for(lambda: _reporting_exec(server))
        status = await server.command("harness.status")
        assert [r["runId"] for r in status["runs"]] == [run_id]
        assert status["workspaceFolders"][0]["watching"]
        server.notify("exit")  # no shutdown first: exit code 1
        assert await asyncio.wait_for(server.proc.wait(), EXIT_WITHIN_S) == 1  # type: ignore[union-attr]
    with sqlite3.connect(store) as conn:
        (outcome,) = conn.execute("SELECT outcome FROM runs WHERE id = ?", (run_id,)).fetchone()
    assert outcome == "cancelled", "the run was stopped and recorded before the process left"


def _reporting_exec(server: WireServer) -> bool:
    for params in server.notifications("$/progress"):
        value = params.get("value") or {}
        if "exec" in str(value.get("message", "")):
            return True
    return False
