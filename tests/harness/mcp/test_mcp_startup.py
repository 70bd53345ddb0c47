"""Start-up does not pay for MCP (issue 35: "imported only when a server is configured" —
and for the language server, only when a run starts one): ``harness-lsp`` started with a
server configured answers ``initialize`` and a ``harness.status`` that lists that server
without the ``mcp`` SDK ever imported (``python -X importtime`` names every module the
process imported, on stderr)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.harness.mcp.servers import time_server, write_config

ROOT = Path(__file__).resolve().parents[3]
# The server as ``python -m server`` runs it, with every import written to argv[1].
WATCHED = """
import runpy, sys
out = open(sys.argv[1], "a", buffering=1)
def hook(event, args):
    if event == "import":
        out.write(args[0] + "\\n")
sys.addaudithook(hook)
sys.argv = ["server"]
runpy.run_module("server", run_name="__main__", alter_sys=True)
"""


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _read(stream: Any) -> dict[str, Any]:
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    answer: dict[str, Any] = json.loads(stream.read(length))
    return answer


def _answer(stream: Any, request_id: int) -> dict[str, Any]:
    while True:  # notifications (logMessage …) come first
        message = _read(stream)
        if message.get("id") == request_id:
            return message


def start_server(tmp_path: Path, *tables: str) -> tuple[float, dict[str, Any], set[str]]:
    """Seconds to ``initialize``'s answer, the ``harness.status`` answer, and the modules the
    server imported, with ``tables`` in the user config."""
    config = tmp_path / "config"
    write_config(config / "harness" / "policy.toml", *tables, head="trusted = []\n")
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(config)}
    env |= {"XDG_DATA_HOME": str(tmp_path / "d"), "HARNESS_STORE": str(tmp_path / "s.db")}
    imported = tmp_path / "imported.txt"
    started = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-c", WATCHED, str(imported)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None
    init = {"processId": None, "rootUri": ws.as_uri(), "capabilities": {}}
    server.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
    server.stdin.flush()
    _answer(server.stdout, 1)
    took = time.monotonic() - started
    for message in (
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "workspace/executeCommand",
            "params": {"command": "harness.status", "arguments": [{}]},
        },
    ):
        server.stdin.write(_frame(message))
    server.stdin.flush()
    status = _answer(server.stdout, 2)
    server.stdin.write(_frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}))
    server.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
    server.stdin.close()
    server.wait(timeout=60)
    server.stdout.close()
    return took, status, set(imported.read_text().split())


def test_the_language_server_never_imports_the_sdk_to_start_or_to_list(tmp_path: Path) -> None:
    _, status, modules = start_server(tmp_path, time_server())
    assert "harness.status" not in json.dumps(status.get("error", {}))
    listed = status["result"]["mcp"]
    assert any(row["name"] == "time" for rows in listed.values() for row in rows), listed
    assert "harness.mcp.runtime" in modules  # the status listed the servers: MCP code ran
    assert not {m for m in modules if m == "mcp" or m.startswith("mcp.")}, "the SDK loaded"
