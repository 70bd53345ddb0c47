"""Where MCP servers come from (§15) and what each one runs: the user config's
``[mcp.servers.NAME]`` tables (``${VAR}`` expanded from the user's environment), the ACP
client's ``session/new.mcpServers``, and the workspace's ``.mcp.json``
(``{"mcpServers": …}``) and ``.vscode/mcp.json`` (``{"servers": …}``). Merged by name, a
later source winning. A workspace server's ``fingerprint`` is a hash of what runs
(command, args, env names and values, cwd, url): its approval is keyed to it."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from harness.errors import ConfigError

SCHEMA_CHARS = 8_000  # [mcp] schema_chars: one server's share of the frame
CALL_TIMEOUT_S = 60.0  # [mcp] call_timeout_s
CONNECT_TIMEOUT_S = 10.0  # [mcp.servers.NAME] startup_timeout_s
MAX_STARTUP_TIMEOUT_S = 600.0
WORKSPACE_FILES = (".mcp.json", ".vscode/mcp.json")
MAX_CONFIG_BYTES = 1_000_000
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class Source(StrEnum):
    USER = "user"
    CLIENT = "client"  # the ACP client's session/new.mcpServers
    WORKSPACE = "workspace"


@dataclass(frozen=True)
class ServerConfig:
    """One server: a command to start (stdio) or a URL (streamable HTTP)."""

    name: str
    source: Source
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    tools: tuple[str, ...] | None = None  # the allow-list; None: every tool
    origin: str = ""  # the file (or "session/new") it was read from
    # How long ``initialize`` may take; the user config's only (not part of what runs).
    startup_timeout_s: float = CONNECT_TIMEOUT_S

    def fingerprint(self) -> str:
        """A hash of what runs; a changed command under the same name is a new server."""
        what = {
            "command": self.command,
            "args": list(self.args),
            "env": sorted(self.env.items()),
            "cwd": self.cwd,
            "url": self.url,
        }
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()

    def shown(self) -> str:
        """What runs, whole, for an approval and ``harness mcp list``."""
        if self.url is not None:
            return self.url
        import shlex

        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items()))
        line = shlex.join([self.command or "", *self.args])
        where = f" (in {self.cwd})" if self.cwd else ""
        return f"{env + ' ' if env else ''}{line}{where}"


@dataclass(frozen=True)
class McpSettings:
    """The user config's ``[mcp]`` table."""

    servers: tuple[ServerConfig, ...] = ()
    schema_chars: int = SCHEMA_CHARS
    call_timeout_s: float = CALL_TIMEOUT_S


def expand(value: str, environ: Mapping[str, str]) -> str:
    """``${VAR}`` from the user's environment (an unset variable expands to nothing)."""
    return _VAR.sub(lambda m: environ.get(m.group(1), ""), value)


def user_settings(config: Path | None, environ: Mapping[str, str] | None = None) -> McpSettings:
    """The ``[mcp]`` table of the user config ``config`` (none: no servers)."""
    if config is None or not config.is_file():
        return McpSettings()
    try:
        data = tomllib.loads(config.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"user config {config}: {exc}") from exc
    table = data.get("mcp", {})
    if not isinstance(table, dict):
        raise ConfigError(f"user config {config}: `mcp` must be a table")
    env = os.environ if environ is None else environ
    where = f"user config {config}"
    servers = table.get("servers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{where}: `[mcp.servers]` must be a table of servers")
    parsed = tuple(
        parse_server(name, spec, Source.USER, where, env) for name, spec in servers.items()
    )
    return McpSettings(
        parsed,
        _positive(table.get("schema_chars", SCHEMA_CHARS), "schema_chars", where),
        float(_positive(table.get("call_timeout_s", CALL_TIMEOUT_S), "call_timeout_s", where)),
    )


def _positive(value: Any, key: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"{where}: `[mcp] {key}` must be a positive number, not {value!r}")
    return int(value)


def parse_server(
    name: str, spec: Any, source: Source, where: str, environ: Mapping[str, str]
) -> ServerConfig:
    """One server's table (``ConfigError`` naming it when it is not one)."""
    problem = _problem(spec)
    if problem is not None:
        raise ConfigError(f"{where}: MCP server `{name}`: {problem}")
    x = (lambda v: expand(v, environ)) if source is Source.USER else (lambda v: v)
    tools = spec.get("tools")
    return ServerConfig(
        name=name,
        source=source,
        command=x(spec["command"]) if "command" in spec else None,
        args=tuple(x(a) for a in spec.get("args", ())),
        env={k: x(v) for k, v in spec.get("env", {}).items()},
        cwd=x(spec["cwd"]) if spec.get("cwd") else None,
        url=x(spec["url"]) if "url" in spec else None,
        headers={k: x(v) for k, v in spec.get("headers", {}).items()},
        tools=tuple(tools) if tools is not None else None,
        origin=where,
        startup_timeout_s=float(spec.get("startup_timeout_s", CONNECT_TIMEOUT_S)),
    )


def _problem(spec: Any) -> str | None:
    """What is wrong with a server's table, in words; None when nothing is."""
    if not isinstance(spec, dict):
        return "must be a table"
    if ("command" in spec) == ("url" in spec):
        return "needs exactly one of `command` (stdio) or `url` (streamable HTTP)"
    for key in ("command", "url", "cwd"):
        if key in spec and not isinstance(spec[key], str):
            return f"`{key}` must be a string"
    if not _strings(spec.get("args", [])):
        return "`args` must be a list of strings"
    if "tools" in spec and not _strings(spec["tools"]):
        return "`tools` must be a list of tool names"
    if "startup_timeout_s" in spec and not _seconds(spec["startup_timeout_s"]):
        return (
            "`startup_timeout_s` must be a number of seconds above 0 and at most "
            f"{MAX_STARTUP_TIMEOUT_S:g}"
        )
    for key in ("env", "headers"):
        value = spec.get(key, {})
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            return f"`{key}` must be a table of strings"
    return None


def _seconds(value: Any) -> bool:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return ok and 0 < value <= MAX_STARTUP_TIMEOUT_S


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def workspace_servers(root: Path) -> tuple[tuple[ServerConfig, ...], tuple[str, ...]]:
    """The servers of the workspace's own files, and a problem line per bad entry (a
    repository's bad file never stops a run). Only the server tables are read: any other
    key (``enableAllProjectMcpServers``…) changes nothing."""
    out: dict[str, ServerConfig] = {}
    problems: list[str] = []
    for rel, key in zip(WORKSPACE_FILES, ("mcpServers", "servers"), strict=True):
        path = root / rel
        if not path.is_file() or path.is_symlink():
            continue
        try:
            data = json.loads(path.read_bytes()[:MAX_CONFIG_BYTES])
        except (OSError, ValueError) as exc:
            problems.append(f"{rel}: not valid JSON ({exc})")
            continue
        servers = data.get(key, {}) if isinstance(data, dict) else {}
        for name, raw in servers.items() if isinstance(servers, dict) else ():
            # Only what says what runs is read (``type``, ``inputs``… are not).
            spec = {k: v for k, v in raw.items() if k in _KEYS} if isinstance(raw, dict) else raw
            try:
                out[name] = parse_server(name, spec, Source.WORKSPACE, rel, {})
            except ConfigError as exc:
                problems.append(str(exc))
    return tuple(out.values()), tuple(problems)


# ``startup_timeout_s`` is not among them: how long the harness waits is the user's to say.
_KEYS = frozenset({"command", "args", "env", "cwd", "url", "headers", "tools"})


def client_servers(specs: list[Mapping[str, Any]]) -> tuple[ServerConfig, ...]:
    """ACP ``session/new.mcpServers`` (``{name, command, args, env: [{name, value}]}``)."""
    out = []
    for spec in specs:
        env = {e["name"]: e["value"] for e in spec.get("env", [])}
        headers = {h["name"]: h["value"] for h in spec.get("headers", [])}
        table: dict[str, Any] = {"env": env, "headers": headers}
        if spec.get("url"):
            table["url"] = spec["url"]
        else:
            table |= {"command": spec.get("command"), "args": list(spec.get("args", []))}
        name = str(spec.get("name", "server"))
        out.append(parse_server(name, table, Source.CLIENT, "session/new", {}))
    return tuple(out)


__all__ = [
    "CALL_TIMEOUT_S",
    "CONNECT_TIMEOUT_S",
    "MAX_STARTUP_TIMEOUT_S",
    "SCHEMA_CHARS",
    "WORKSPACE_FILES",
    "McpSettings",
    "ServerConfig",
    "Source",
    "client_servers",
    "expand",
    "parse_server",
    "user_settings",
    "workspace_servers",
]
