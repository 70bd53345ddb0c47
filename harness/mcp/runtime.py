"""One run's MCP servers (§15): which of the configured servers may start (a workspace's
only in a trusted folder, each approved once for what it runs), started together, their
tools listed once, sorted and frozen for the run (a change the server announces applies from
the next run: ``drift``), the frame's line for tools left out, and everything stopped with
the run (``aclose``). With no server configured nothing here runs
and the SDK is never imported."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from harness.escape import printable
from harness.mcp.approvals import approval_state, approvals_file, approve
from harness.mcp.client import Connection, Launch, McpFailure, State
from harness.mcp.config import McpSettings, ServerConfig, Source, user_settings, workspace_servers
from harness.mcp.drift import Drift
from harness.mcp.tools import McpTool, choose, offered_of
from harness.tools.base import Tool
from harness.types import Act, Approval, ApprovalRequest, Approver, ExecConfig


@dataclass
class ServerStatus:
    """A line of ``harness mcp list`` and ``harness.status``."""

    name: str
    source: str
    approval: str
    state: str
    tools: list[str] = field(default_factory=list)
    schema_chars: int = 0
    note: str = ""

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "source": self.source,
            "approval": self.approval,
            "state": self.state,
            "tools": self.tools,
            "schemaChars": self.schema_chars,
            "note": self.note,
        }


@dataclass
class McpRun:
    """The servers of one run and the tools they offer."""

    settings: McpSettings
    connections: list[Connection] = field(default_factory=list)
    tools: dict[str, Tool] = field(default_factory=dict)
    statuses: list[ServerStatus] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # told to the user once per run
    frame: list[str] = field(default_factory=list)  # lines of the frame (tools left out)

    def frame_text(self) -> str:
        """The frame's section on MCP tools not offered; empty when all were."""
        return "# MCP tools\n" + "\n".join(self.frame) if self.frame else ""

    async def aclose(self) -> None:
        """Stop every server (idempotent)."""
        await asyncio.gather(*(c.close() for c in self.connections), return_exceptions=True)


@dataclass(frozen=True)
class Where:
    """The run's place: its workspace, whether the user trusts it, the user config."""

    root: Path
    trusted: bool
    user_config: Path | None
    exec_config: ExecConfig = field(default_factory=ExecConfig)


def configured(
    where: Where, environ: Mapping[str, str], client: Sequence[ServerConfig] = ()
) -> tuple[McpSettings, list[ServerConfig], list[str]]:
    """The settings, every server by name (user config, then the client's, then the
    workspace's: a later source wins) and the problems of the workspace's files."""
    settings = user_settings(where.user_config, environ)
    ws, problems = workspace_servers(where.root)
    merged: dict[str, ServerConfig] = {}
    for server in (*settings.servers, *client, *ws):
        merged[server.name] = server
    return settings, list(merged.values()), [f"MCP: {p}" for p in problems]


def configured_status(where: Where, environ: Mapping[str, str]) -> list[dict[str, object]]:
    """What ``harness.status`` shows of each configured server without starting any: its
    source, its approval, and whether a run would start it."""
    _, servers, problems = configured(where, environ)
    path = approvals_file(where.user_config) if where.user_config else None
    rows = []
    for server in servers:
        approval, state = _approval(server), "starts with each run"
        if server.source is Source.WORKSPACE:
            approval = approval_state(path, where.root, server)
            if not where.trusted:
                state = "not started: the folder is not trusted"
            elif approval != "approved":
                state = f"not started: {approval}"
        row = ServerStatus(server.name, _source(server), approval, state, note=server.shown())
        rows.append(row.as_json())
    return rows + [{"problem": p} for p in problems]


async def open_mcp(
    where: Where,
    environ: Mapping[str, str],
    *,
    approver: Approver | None = None,
    run_id: int = 0,
    client: Sequence[ServerConfig] = (),
) -> McpRun | None:
    """Start the servers this run may use and list their tools; None when none is
    configured (the SDK is not loaded)."""
    settings, servers, problems = configured(where, environ, client)
    if not servers and not problems:
        return None
    run = McpRun(settings, warnings=problems)
    startable = [s for s in servers if await _may_start(run, where, s, approver, run_id)]
    launch = _launcher(where, environ, settings)
    run.connections = [Connection(s, launch(s)) for s in startable]
    await asyncio.gather(*(_start(run, c) for c in run.connections))
    taken: dict[str, str] = {}
    for connection in run.connections:
        await _list(run, connection, taken)
    run.tools = dict(sorted(run.tools.items()))
    return run


def _launcher(where: Where, environ: Mapping[str, str], settings: McpSettings):  # type: ignore[no-untyped-def]
    from harness.tools.exec import exec_environment

    env = exec_environment(environ)

    def launch(server: ServerConfig) -> Launch:
        return Launch(
            env,
            where.root,
            sandbox=server.source is Source.WORKSPACE,
            network=where.exec_config.network,
            connect_timeout_s=server.startup_timeout_s,
            call_timeout_s=settings.call_timeout_s,
        )

    return launch


async def _may_start(
    run: McpRun, where: Where, server: ServerConfig, approver: Approver | None, run_id: int
) -> bool:
    """A user's or client's server starts; a workspace's only in a trusted folder, and only
    as approved (asked now when the approver can ask, and remembered)."""
    if server.source is not Source.WORKSPACE:
        return True
    path = approvals_file(where.user_config) if where.user_config else None
    state = approval_state(path, where.root, server)
    status = ServerStatus(server.name, f"workspace ({server.origin})", state, "not started")
    if not where.trusted:
        status.note = "the folder is not trusted"
        run.statuses.append(status)
        run.warnings.append(
            f"MCP server `{printable(server.name)}` of {server.origin} not started: this folder "
            f"is not trusted (run `harness trust {printable(str(where.root))}` if you trust it)"
        )
        return False
    if state == "approved":
        return True
    answer = Approval.UNAVAILABLE
    if approver is not None and path is not None and not getattr(approver, "blanket", False):
        shown = f"MCP server: {server.name} (from {server.origin})\nruns: {server.shown()}"
        why = f"a workspace MCP server ({state}): it runs only once you approve what it runs"
        ask = ApprovalRequest(run_id, Act.MCP, f"start {server.name}", why, shown)
        answer = await approver(ask)
    if answer in (Approval.ALLOW_ONCE, Approval.ALLOW_RUN) and path is not None:
        approve(path, where.root, server)
        return True
    status.note = f"{state}: run `harness mcp approve {printable(server.name)}`"
    run.statuses.append(status)
    run.warnings.append(
        f"MCP server `{printable(server.name)}` of {server.origin} not started: {state} "
        f"(`harness mcp approve {printable(server.name)} -w {printable(str(where.root))}`)"
    )
    return False


async def _start(run: McpRun, connection: Connection) -> None:
    try:
        await connection.start()
    except McpFailure as exc:
        run.warnings.append(f"MCP server `{printable(connection.config.name)}`: {exc}")
    except Exception as exc:  # a sandbox that cannot run, a bad command: never the run's end
        connection.state, connection.error = State.FAILED, str(exc)
        run.warnings.append(f"MCP server `{printable(connection.config.name)}`: {exc}")


async def _list(run: McpRun, connection: Connection, taken: dict[str, str]) -> None:
    config = connection.config
    status = ServerStatus(config.name, _source(config), _approval(config), connection.state.value)
    run.statuses.append(status)
    if connection.state is not State.RUNNING:
        status.note = connection.error
        return
    try:
        listed = await connection.list_tools()
    except Exception as exc:  # the SDK refuses a listing it cannot validate, whole
        first = str(exc).strip().splitlines()[:3]
        status.note = f"tools/list failed, no tool offered: {' '.join(first)[:300]}"
        run.warnings.append(f"MCP server `{printable(config.name)}`: {status.note}")
        return
    offered = [o for t in listed if (o := offered_of(config.name, t)) is not None]
    bad = len(listed) - len(offered)
    chosen = choose(config.name, offered, config.tools, run.settings.schema_chars, taken)
    drift = Drift.of(connection, listed)  # the tools are frozen for the run from here
    for name, one in chosen.tools:
        run.tools[name] = cast(Tool, McpTool(name, one, drift))
        taken[name] = f"{config.name}/{one.tool}"
    status.tools = [o.tool for _, o in chosen.tools]
    status.schema_chars = chosen.schema_chars
    notes = _notes(config.name, chosen.left_out, chosen.refused, bad, run.settings.schema_chars)
    status.note = "; ".join(notes)
    run.warnings += [f"MCP server `{printable(config.name)}`: {n}" for n in notes]
    if chosen.left_out:
        run.frame.append(
            f"- MCP server {config.name}: {len(chosen.left_out)} tools not offered (over its "
            f"{run.settings.schema_chars:,}-character schema budget): {', '.join(chosen.left_out)}"
        )


def _notes(
    server: str, left_out: list[str], refused: list[str], bad: int, budget: int
) -> list[str]:
    out = []
    if left_out:
        out.append(
            f"{len(left_out)} tools not offered, over [mcp] schema_chars = {budget:,}: "
            + ", ".join(left_out[:20])
            + (f" and {len(left_out) - 20} more" if len(left_out) > 20 else "")
        )
    out += [f"tool refused: {r}" for r in refused]
    if bad:
        out.append(f"{bad} tools not offered: their input schema is not a JSON object schema")
    return out


def _source(config: ServerConfig) -> str:
    if config.source is Source.WORKSPACE:
        return f"workspace ({config.origin})"
    return config.source.value


def _approval(config: ServerConfig) -> str:
    return "approved" if config.source is Source.WORKSPACE else "yours"


__all__ = [
    "McpRun",
    "ServerStatus",
    "Where",
    "configured",
    "configured_status",
    "open_mcp",
]
