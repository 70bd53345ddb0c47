"""``harness acp``: the Agent Client Protocol agent on stdio (§13), for Zed, the JetBrains
IDEs, codecompanion.nvim and avante.nvim. Like ``harness lsp`` it is a process hand-off to
the ``server`` package (the runtime never imports it); the flags are declared here once and
``python -m server.acp`` parses them with the same parser."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from harness.cli.args import EXIT_USAGE, PASSWORD_ON_COMMAND_LINE, Parser, add_store_arg
from harness.provider import PROVIDER_NAMES

_DESCRIPTION = (
    "Serve the Agent Client Protocol on stdio: an editor (Zed, a JetBrains IDE, "
    "codecompanion.nvim, avante.nvim) starts this command and talks to the harness. A session "
    "is a conversation in the folder the editor names; each prompt is a run under your policy. "
    "API key: $HARNESS_API_KEY, else the provider's usual variable."
)


def add_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--provider",
        choices=PROVIDER_NAMES,
        default=None,
        metavar="NAME",
        help=f"{', '.join(PROVIDER_NAMES)} (default: $HARNESS_PROVIDER, else openai)",
    )
    p.add_argument("--model", metavar="M", help="the model (default: $HARNESS_MODEL)")
    p.add_argument(
        "--models",
        metavar="M,M",
        help="the models an editor may switch a session to, beside --model "
        "(default: $HARNESS_MODELS)",
    )
    p.add_argument(
        "--base-url",
        metavar="URL",
        help="an OpenAI- or Anthropic-compatible server (default: $HARNESS_BASE_URL)",
    )
    add_store_arg(p)
    p.add_argument(
        "--no-memory", action="store_true", help="neither recall nor write notes (default: off)"
    )


def register(sub: Any) -> None:
    p = sub.add_parser(
        "acp", help="serve the Agent Client Protocol on stdio", description=_DESCRIPTION
    )
    add_flags(p)
    p.set_defaults(func=_hand_off)


def parser() -> Parser:
    """The parser ``python -m server.acp`` reads its arguments with."""
    p = Parser(prog="harness acp", description=_DESCRIPTION)
    add_flags(p)
    return p


def forwarded(args: argparse.Namespace) -> list[str]:
    """The flags given, as arguments again — all but ``--store``, which goes through the
    environment (``$HARNESS_STORE``): a store URL is never put on a command line (§12)."""
    out: list[str] = []
    for flag in ("provider", "model", "models", "base_url"):
        value = getattr(args, flag)
        if value:
            out += [f"--{flag.replace('_', '-')}", str(value)]
    return out + (["--no-memory"] if args.no_memory else [])


def _hand_off(args: argparse.Namespace) -> int:
    if args.store:
        os.environ["HARNESS_STORE"] = str(args.store)
    return hand_off(forwarded(args))


def hand_off_raw(argv: list[str]) -> int:
    """``harness acp ARGV`` without parsing it here (an editor is waiting): its ``--store``
    moved to ``$HARNESS_STORE`` (refused if it holds a password), the rest handed off."""
    rest, store = _without_store(argv)
    if store is not None:
        from harness.store.connection import has_password

        if has_password(store):
            said = f"harness acp: error: argument --store: {PASSWORD_ON_COMMAND_LINE}"
            print(said, file=sys.stderr)
            return EXIT_USAGE
        os.environ["HARNESS_STORE"] = store
    return hand_off(rest)


def _without_store(argv: list[str]) -> tuple[list[str], str | None]:
    rest: list[str] = []
    store: str | None = None
    items = iter(argv)
    for arg in items:
        if arg == "--store":
            store = next(items, "")
        elif arg.startswith("--store="):
            store = arg.partition("=")[2]
        else:
            rest.append(arg)
    return rest, store


def hand_off(argv: list[str]) -> int:
    """``python -m server.acp ARGV`` in this process's place (it parses ``argv`` with
    ``parser()``). A process hand-off, not an import: the runtime never depends on the
    server package."""
    os.execv(sys.executable, [sys.executable, "-m", "server.acp", *argv])


__all__ = ["add_flags", "forwarded", "hand_off", "hand_off_raw", "parser", "register"]
