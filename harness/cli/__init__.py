"""The ``harness`` command line: ``run``, ``memory``, ``trace``, ``revert``, ``trust``,
``mcp``, ``demo``, ``lsp``, ``acp``. ``harness`` alone (or a command group alone, ``harness
memory``) prints its help.

Exit status: 0 for ``success``/``finished``, 1 for any other outcome (or "not found"),
2 for a usage or configuration error, with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from importlib import import_module

from harness import __version__
from harness.cli.args import EXIT_FAILED, EXIT_USAGE, Parser, commands
from harness.errors import ConfigError, StoreError

# The commands in the order ``harness --help`` lists them; each but ``lsp`` is the module
# ``harness.cli.NAME`` with a ``register(sub)``.
COMMANDS: tuple[str, ...] = ("run", "chat", "memory", "trace", "revert", "rewind", "trust")
COMMANDS += ("mcp", "demo", "lsp", "acp")


def build_parser(only: Sequence[str] | None = None) -> Parser:
    """The whole parser, or with only the commands ``only`` names: ``harness memory list
    --help`` then imports no other command's module (their help and behaviour are the same:
    a command's parser never reads another's)."""
    parser = Parser(
        prog="harness",
        description="A coding agent with a budgeted context and a full trace. "
        "Run `harness COMMAND --help` for a command's flags.",
    )
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = commands(parser, "command")
    for name in COMMANDS if only is None else [n for n in COMMANDS if n in only]:
        if name == "lsp":
            lsp = sub.add_parser("lsp", help="start the language server on stdio")
            lsp.set_defaults(func=_lsp)
        else:
            import_module(f"harness.cli.{name}").register(sub)
    return parser


def _needed(given: Sequence[str]) -> Sequence[str] | None:
    """The commands the arguments ``given`` can reach: the one they name, none for
    ``--version`` (argparse prints it and exits before any command), else all."""
    if given[:1] == ["--version"]:
        return ()
    return given[:1] if given[:1] and given[0] in COMMANDS else None


def _lsp(args: argparse.Namespace) -> int:
    # A process hand-off, not an import: the runtime never depends on the server package.
    os.execv(sys.executable, [sys.executable, "-m", "server"])


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(message)s"
    )
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["acp"]:  # an editor is waiting for the agent: no other command's imports
        from harness.cli.acp import hand_off_raw

        return hand_off_raw(given[1:])
    parser = build_parser(_needed(given))
    args = parser.parse_args(given)
    try:
        code: int = args.func(args)
    except (ConfigError, StoreError) as exc:
        print(f"harness: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("harness: interrupted", file=sys.stderr)
        return EXIT_FAILED
    return code


if __name__ == "__main__":
    sys.exit(main())
