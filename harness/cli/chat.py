"""``harness chat``: the conversation loop on a terminal (§8, §11). Each line is a follow-up
in one conversation — the first starts it — run with the same live view as ``harness run``;
Ctrl-C stops the turn (the next line carries on, resuming it), Ctrl-D ends the chat; a
line typed while a turn runs is sent to it (steering, issue 33). Runs
are exported like ``harness run``'s when a collector is named (§12): one export for the
chat, flushed within its bound when the chat ends."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from harness.cli.args import choose_workspace
from harness.cli.run import add_run_options, contract_overrides, execute, provider_config
from harness.errors import ConfigError
from harness.escape import printable

if TYPE_CHECKING:
    from harness.cli.args import WorkspaceChoice
    from harness.cli.chat_input import ChatInput
    from harness.telemetry.export import Telemetry

PROMPT = "› "


def register(sub: Any) -> None:
    p = sub.add_parser(
        "chat",
        help="talk to the agent: each line a follow-up",
        description="An interactive conversation in a workspace: type a goal, then follow-ups; "
        "each line is the next turn with the conversation so far. Ctrl-C stops the running "
        "turn, Ctrl-D ends the chat.",
    )
    p.add_argument(
        "--continue",
        dest="conversation",
        type=int,
        default=None,
        metavar="RUN",
        help="carry on the conversation of RUN (default: a new conversation)",
    )
    add_run_options(p)
    p.set_defaults(func=command, json=False)


def command(args: argparse.Namespace) -> int:
    from harness.telemetry import start_telemetry

    where = choose_workspace(args.workspace)
    telemetry = start_telemetry(os.environ)
    try:
        return _chat(args, where, telemetry)
    finally:
        if telemetry is not None:  # bounded (§12)
            telemetry.shutdown()


def _chat(args: argparse.Namespace, where: WorkspaceChoice, telemetry: Telemetry | None) -> int:
    import asyncio

    from harness.cli.output import console
    from harness.run.session import build_contract

    err = console(stderr=True)
    conversation: int | None = args.conversation
    lines = _terminal_lines()
    while True:
        try:
            line = lines.next_line(PROMPT) if lines else input(PROMPT)
        except EOFError:
            print()
            return 0
        except KeyboardInterrupt:
            print()
            continue
        if not line.strip():
            continue
        try:
            contract = build_contract(line, where.root, contract_overrides(args))
            result = asyncio.run(
                execute(
                    args,
                    contract,
                    provider_config(args),
                    where,
                    conversation=conversation,
                    telemetry=telemetry,
                    lines=lines,
                )
            )
        except ConfigError as exc:
            err.print(f"harness: {printable(str(exc))}", markup=False, highlight=False)
            continue
        conversation = result.conversation_id
        args.context = []  # attached once, to the first turn


def _terminal_lines() -> ChatInput | None:
    """On a terminal, one reader of its lines: a line typed while a turn runs steers it
    (issue 33); piped lines stay one turn each (None: ``input``)."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None
    from harness.cli.chat_input import ChatInput

    return ChatInput()


__all__ = ["command", "register"]
