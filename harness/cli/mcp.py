"""``harness mcp list [-w DIR] [--json]``: the MCP servers a run in DIR would have (§15) —
source, approval, state, tools, schema characters — started to be listed, then stopped.
``harness mcp approve NAME [-w DIR] [--yes]``: approve a workspace server (``.mcp.json``,
``.vscode/mcp.json``) from the terminal, shown what it runs; the approval is keyed to a
hash of that, so a changed command is asked again."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

from harness.cli.args import WORKSPACE_HELP, choose_workspace
from harness.cli.output import say
from harness.errors import ConfigError


def register(sub: Any) -> None:
    p = sub.add_parser("mcp", help="the MCP servers a run would use: list, approve")
    inner = p.add_subparsers(dest="mcp_command", metavar="COMMAND")
    p.set_defaults(func=lambda _args: p.print_help() or 0)
    listing = inner.add_parser("list", help="servers, source, approval, state, tools")
    listing.add_argument("-w", "--workspace", default=None, metavar="DIR", help=WORKSPACE_HELP)
    listing.add_argument("--json", action="store_true", help="print JSON (default: off)")
    listing.set_defaults(func=list_command)
    approve = inner.add_parser("approve", help="approve a workspace's MCP server (shows it)")
    approve.add_argument("name", metavar="NAME", help="the server's name in .mcp.json")
    approve.add_argument("-w", "--workspace", default=None, metavar="DIR", help=WORKSPACE_HELP)
    approve.add_argument("--yes", action="store_true", help="approve without asking (default: ask)")
    approve.set_defaults(func=approve_command)


def _where(workspace: str | None) -> Any:
    from harness.mcp.runtime import Where

    root = choose_workspace(workspace).root
    from harness.policy import Policy, default_user_config

    policy = Policy.load(root)
    return Where(root, policy.trusted, default_user_config(), policy.exec_config)


def list_command(args: argparse.Namespace) -> int:
    from harness.mcp.runtime import open_mcp

    where = _where(args.workspace)

    async def listed() -> list[dict[str, object]]:
        run = await open_mcp(where, os.environ)
        if run is None:
            return []
        await run.aclose()
        return [s.as_json() for s in run.statuses]

    rows = asyncio.run(listed())
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        say(
            f"no MCP server configured for {where.root} "
            f"(add [mcp.servers.NAME] to {where.user_config})"
        )
    for row in rows:
        tools = row["tools"]
        assert isinstance(tools, list)
        say(
            f"{row['name']} · {row['source']} · {row['approval']} · {row['state']} · "
            f"{len(tools)} tools, {row['schemaChars']:,} schema chars"
            + (f" · {row['note']}" if row["note"] else "")
        )
    return 0


def approve_command(args: argparse.Namespace) -> int:
    from harness.mcp.approvals import approval_state, approvals_file, approve
    from harness.mcp.config import Source
    from harness.mcp.runtime import configured

    where = _where(args.workspace)
    _, servers, _ = configured(where, os.environ)
    server = next((s for s in servers if s.name == args.name), None)
    if server is None or server.source is not Source.WORKSPACE:
        raise ConfigError(f"no workspace MCP server `{args.name}` in {where.root}")
    path = approvals_file(where.user_config)
    say(f"MCP server `{server.name}` of {server.origin} in {where.root} runs:")
    say(f"  {server.shown()}")
    say(f"({approval_state(path, where.root, server)})")
    if not where.trusted:
        say(f"note: {where.root} is not trusted; the server starts only once you trust it")
    if not args.yes:
        if not sys.stdin.isatty():
            raise ConfigError("no terminal to ask: run it on a terminal, or with --yes")
        if input("approve it? [y/N] ").strip().casefold() not in ("y", "yes"):
            say("not approved")
            return 1
    approve(path, where.root, server)
    say(f"approved `{server.name}` (recorded in {path}); a changed command is asked again")
    return 0


__all__ = ["approve_command", "list_command", "register"]
