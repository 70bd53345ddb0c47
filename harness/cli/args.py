"""The arguments every subcommand shares and what they lead to: the exit statuses, the
parser (a usage error is one line and status 2), ``--store`` and the store it opens,
``--json``, and ``-w/--workspace`` with the workspace it chooses (§8)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:  # the store loads when a command opens it, not to parse the arguments
    from harness.store import Store

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def commands(parser: argparse.ArgumentParser, dest: str) -> Any:
    """The subcommands of ``parser``, listed under "commands" and named ``COMMAND`` in
    messages (not by their ``dest``); given none, the parser prints its help."""
    parser.set_defaults(func=lambda args: _help(parser))
    return parser.add_subparsers(
        dest=dest, metavar="COMMAND", title="commands", parser_class=Parser
    )


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return EXIT_OK


def add_store_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store",
        metavar="PATH|URL",
        default=None,
        help="the store: a SQLite file, or a postgresql:// URL for a team's shared store"
        " (default: $HARNESS_STORE, else <user data dir>/harness/harness.db)",
    )


def add_json_arg(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON (default: off)")


def store_path(args: argparse.Namespace) -> Path | str:
    from harness.store import default_store_path, store_location

    given = getattr(args, "store", None)
    return store_location(given) if given else default_store_path()


def open_store(args: argparse.Namespace) -> Store:
    from harness.store import Store

    return Store(store_path(args))


@dataclass(frozen=True)
class WorkspaceChoice:
    """The workspace a command works on, and how it was found (for the line that names it)."""

    root: Path
    how: str  # "" (given with -w), "the git root of the current directory", or ""

    def describe(self) -> str:
        return f"workspace {self.root}" + (f" ({self.how})" if self.how else "")


def git_root(start: Path) -> Path | None:
    """The nearest folder from ``start`` up that holds ``.git``; None if none does."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def choose_workspace(given: str | None) -> WorkspaceChoice:
    """``-w DIR`` when given; else the git root of the current directory; else the
    current directory (§8: the same for ``run`` and ``memory``)."""
    if given:
        return WorkspaceChoice(Path(given).expanduser().resolve(), "")
    cwd = Path.cwd().resolve()
    root = git_root(cwd)
    if root is None:
        return WorkspaceChoice(cwd, "")
    return WorkspaceChoice(root, "the git root of the current directory")


WORKSPACE_HELP = (
    "the workspace root: every path the agent uses is relative to it (default: the git root "
    "of the current directory, else the current directory)"
)


def add_workspace_arg(parser: argparse.ArgumentParser | Any) -> None:
    parser.add_argument("-w", "--workspace", metavar="DIR", default=None, help=WORKSPACE_HELP)


__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "WORKSPACE_HELP",
    "Parser",
    "WorkspaceChoice",
    "add_json_arg",
    "add_store_arg",
    "add_workspace_arg",
    "choose_workspace",
    "commands",
    "git_root",
    "open_store",
    "store_path",
]
