"""A tiny MCP server that misbehaves on purpose, run as a real process by the MCP tests:
``python -m tests.support.mcp_hostile MODE [MARKER]``, speaking newline-delimited JSON-RPC on
stdio (no SDK: the point is what a broken server sends). Modes:

- ``ok``: one tool ``echo`` (answers its ``text``); ``get_env`` (its environment, as JSON)
- ``silent``: never answers ``initialize``
- ``hang``: ``echo`` never answers
- ``crash``: ``echo`` exits the process (restarted once by the harness, then gone)
- ``flood``: writes 20 MB to stderr before answering anything, then as ``ok``
- ``big``: ``echo`` answers 50 MB of text
  (``MCP_HOSTILE_BYTES`` in the server's environment: that many instead, for both)
- ``many``: 500 tools
- ``badschema``: a tool whose input schema is a string, and one ``echo``
- ``collide``: tools ``a.b`` and ``a_b`` (one name once sanitised)
- ``error``: ``echo`` answers ``isError``
- ``stubborn``: as ``ok``, but it does not exit when its input closes
- ``changing``: tools ``echo`` and ``swap``; calling ``swap`` withdraws ``echo``, adds
  ``fresh`` and sends ``notifications/tools/list_changed`` 50 times before it answers; a
  withdrawn tool called answers ``isError``. With MARKER, each ``tools/list`` it answers is
  a line ``tools/list`` there, and its tools are kept in ``MARKER.tools``, so the server
  of the next run (a new process) starts swapped
- ``relistfails``: as ``changing``, but after ``swap`` (one notification) every
  ``tools/list`` is an error

With MARKER, the server writes its pid to that file first (proves it ran, or never did)."""

from __future__ import annotations

import json
import os
import sys
import time

FLOOD_BYTES = 20_000_000
BIG_CHARS = 50_000_000


def _size(default: int) -> int:
    return int(os.environ.get("MCP_HOSTILE_BYTES") or default)


def _send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _tool(name: str, schema: object = None) -> dict:
    schema = (
        schema
        if schema is not None
        else {
            "type": "object",
            "properties": {"text": {"type": "string"}},
        }
    )
    return {"name": name, "description": f"the {name} tool", "inputSchema": schema}


_MARKER: list[str] = []
LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
_FIRST = ["echo", "swap"]
_SWAPPED: list[str] = []
_BROKEN: list[bool] = []


def _changing() -> list[str]:
    """The ``changing`` server's tools now: from ``MARKER.tools`` when there is one."""
    for path in _MARKER:
        if os.path.exists(f"{path}.tools"):
            with open(f"{path}.tools") as kept:
                return list(json.load(kept))
    return _SWAPPED or _FIRST


def _swap() -> None:
    _SWAPPED[:] = ["fresh", "swap"]
    for path in _MARKER:
        with open(f"{path}.tools", "w") as kept:
            json.dump(_SWAPPED, kept)


def _tools(mode: str) -> list[dict]:
    if mode in ("changing", "relistfails"):
        for path in _MARKER:
            with open(path, "a") as marker:
                marker.write("tools/list\n")
        return [_tool(name) for name in _changing()]
    if mode == "many":
        return [_tool(f"tool_{i:03d}") for i in range(500)]
    if mode == "badschema":
        return [_tool("broken", "not a schema"), _tool("echo")]
    if mode == "collide":
        return [_tool("a.b"), _tool("a_b")]
    return [_tool("echo"), _tool("get_env")]


def _call(mode: str, params: dict) -> dict | None:
    name, args = params.get("name"), params.get("arguments") or {}
    if mode == "hang":
        time.sleep(3600)
    if mode == "crash":
        os._exit(3)
    if mode == "relistfails" and name == "swap":
        _BROKEN.append(True)
        _send(LIST_CHANGED)
        return {"content": [{"type": "text", "text": "tools/list is broken from now on"}]}
    if mode in ("changing", "relistfails"):
        return _changing_call(str(name), args)
    if name == "get_env":
        return {"content": [{"type": "text", "text": json.dumps(dict(os.environ))}]}
    text = "x" * _size(BIG_CHARS) if mode == "big" else str(args.get("text", ""))
    return {"content": [{"type": "text", "text": text}], "isError": mode == "error"}


def _changing_call(name: str, args: dict) -> dict:
    if name not in _changing():
        return {"content": [{"type": "text", "text": f"no tool {name}"}], "isError": True}
    if name == "swap":
        _swap()
        for _ in range(50):
            _send(LIST_CHANGED)
        return {"content": [{"type": "text", "text": "swapped: echo out, fresh in"}]}
    return {"content": [{"type": "text", "text": f"{name}: {args.get('text', '')}"}]}


def _answer(mode: str, request: dict) -> dict | None:
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        if mode == "silent":
            return None
        return {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {"listChanged": mode in ("changing", "relistfails")}},
            "serverInfo": {"name": f"hostile-{mode}", "version": "1"},
        }
    if method == "tools/list":
        return None if _BROKEN else {"tools": _tools(mode)}
    if method == "tools/call":
        return _call(mode, params)
    if method == "ping":
        return {}
    return None


def main() -> None:
    mode = sys.argv[1]
    if len(sys.argv) > 2:
        _MARKER.append(sys.argv[2])
        with open(sys.argv[2], "a") as marker:
            marker.write(f"{os.getpid()}\n")
    if mode == "flood":
        chunk = "flood " * 10_000 + "\n"
        for _ in range(_size(FLOOD_BYTES) // len(chunk)):
            sys.stderr.write(chunk)
        sys.stderr.flush()
    for line in sys.stdin:
        request = json.loads(line)
        if "id" not in request or "method" not in request:
            continue
        result = _answer(mode, request)
        if result is not None:
            _send({"jsonrpc": "2.0", "id": request["id"], "result": result})
        elif request["method"] not in ("initialize",):
            error = {"code": -32601, "message": f"no method {request['method']}"}
            _send({"jsonrpc": "2.0", "id": request["id"], "error": error})
    if mode == "stubborn":  # its input closed: it stays anyway, until it is killed
        time.sleep(3600)


if __name__ == "__main__":
    main()
