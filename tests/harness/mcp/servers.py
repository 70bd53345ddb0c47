"""The MCP servers the tests run — real processes: the reference servers from PyPI
(``mcp-server-time``, ``mcp-server-git``, in the dev extra) and npm
(``@modelcontextprotocol/server-everything``, ``server-filesystem``: ``make mcp-servers``),
and the hostile fixture ``tests.support.mcp_hostile`` — written as a user config's
``[mcp.servers.NAME]`` tables."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
NPM_BIN = ROOT / "tests" / "mcp_servers" / "node_modules" / ".bin"


def npm_server(name: str) -> str:
    path = NPM_BIN / name
    if not path.exists():
        pytest.skip(f"{path} is not installed: run `make mcp-servers`")
    return str(path)


def _toml(value: object) -> str:
    """A TOML value: JSON's strings, numbers, booleans and arrays; a dict as an inline table."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def table(name: str, command: str, *args: str, **extra: object) -> str:
    """One ``[mcp.servers.NAME]`` table of a user config."""
    lines = [f"[mcp.servers.{json.dumps(name)}]", f"command = {json.dumps(command)}"]
    lines.append(f"args = {json.dumps(list(args))}")
    for key, value in extra.items():
        lines.append(f"{key} = {_toml(value)}")
    return "\n".join(lines) + "\n"


def hostile(name: str, mode: str, marker: Path | None = None, **extra: object) -> str:
    args = ["-m", "tests.support.mcp_hostile", mode, *([str(marker)] if marker else [])]
    return table(name, sys.executable, *args, cwd=str(ROOT), **extra)


def time_server() -> str:
    return table("time", str(BIN / "mcp-server-time"), "--local-timezone", "UTC")


def write_config(path: Path, *tables: str, head: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head + "\n".join(tables))
    return path
