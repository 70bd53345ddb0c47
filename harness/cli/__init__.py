"""The ``harness`` command line: ``run``, ``memory``, ``trace``, ``trust``, ``demo``, ``lsp``.

Exit status: 0 for ``success``/``finished``, 1 for any other outcome (or "not found"),
2 for a usage or configuration error, with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from harness import __version__
from harness.errors import ConfigError, StoreError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> Parser:
    from harness.cli import demo, memory, run, trace, trust

    parser = Parser(prog="harness", description="A coding agent with a budgeted context.")
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    run.register(sub)
    memory.register(sub)
    trace.register(sub)
    trust.register(sub)
    demo.register(sub)
    lsp = sub.add_parser("lsp", help="start the language server on stdio")
    lsp.set_defaults(func=_lsp)
    return parser


def _lsp(args: argparse.Namespace) -> int:
    # A process hand-off, not an import: the runtime never depends on the server package.
    os.execv(sys.executable, [sys.executable, "-m", "server"])


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(message)s"
    )
    parser = build_parser()
    args = parser.parse_args(argv)
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
