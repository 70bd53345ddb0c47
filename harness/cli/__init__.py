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

from harness import __version__
from harness.cli.args import EXIT_FAILED, EXIT_USAGE, Parser, commands
from harness.errors import ConfigError, StoreError


def build_parser() -> Parser:
    from harness.cli import acp, chat, demo, mcp, memory, revert, rewind, run, trace, trust

    parser = Parser(
        prog="harness",
        description="A coding agent with a budgeted context and a full trace. "
        "Run `harness COMMAND --help` for a command's flags.",
    )
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = commands(parser, "command")
    run.register(sub)
    chat.register(sub)
    memory.register(sub)
    trace.register(sub)
    revert.register(sub)
    rewind.register(sub)
    trust.register(sub)
    mcp.register(sub)
    demo.register(sub)
    lsp = sub.add_parser("lsp", help="start the language server on stdio")
    lsp.set_defaults(func=_lsp)
    acp.register(sub)
    return parser


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
    parser = build_parser()
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
