"""What every subcommand shares: the store and workspace arguments, the consoles (their
width and colour), JSON output, and printing one line of text.

Width: ``COLUMNS`` when set, else the terminal's, else 120 columns when piped. Colour only
on a terminal, and never with ``NO_COLOR`` set (rich honours it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, Protocol, TypeVar

from rich.console import Console
from rich.text import Text

from harness.escape import printable
from harness.store import Store, default_store_path

PIPED_WIDTH = 120
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
        metavar="PATH",
        default=None,
        help="the SQLite store (default: $HARNESS_STORE, else <user data dir>/harness/harness.db)",
    )


def add_json_arg(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON (default: off)")


def store_path(args: argparse.Namespace) -> Path:
    return Path(args.store).expanduser() if getattr(args, "store", None) else default_store_path()


def open_store(args: argparse.Namespace) -> Store:
    return Store(store_path(args))


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=None) + "\n")


class Jsonable(Protocol):
    def to_json(self) -> Any: ...


J = TypeVar("J", bound=Jsonable)


def print_found(
    args: argparse.Namespace,
    found: J | None,
    missing: str,
    human: Callable[[J], object],
    as_json: Callable[[J], Any] | None = None,
) -> int:
    """What a command that looks one thing up prints: ``missing`` on stderr (exit status 1)
    when it was not found; else, with ``--json``, its JSON (``as_json``, by default its
    ``to_json()``), or what ``human`` prints."""
    if found is None:
        print(missing, file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print_json(as_json(found) if as_json is not None else found.to_json())
    else:
        human(found)
    return EXIT_OK


def console(*, stderr: bool = False) -> Console:
    """A console on stdout (or stderr): the terminal's width, or ``COLUMNS``, or 120 columns
    when piped."""
    out = Console(highlight=False, stderr=stderr)
    if out.is_terminal or os.environ.get("COLUMNS", "").isdigit():
        return out
    return Console(highlight=False, stderr=stderr, width=PIPED_WIDTH)


def say(line: str, out: Console | None = None, *, style: str = "") -> None:
    """One line, escaped (much of what is printed was chosen by a model): wrapped at the
    width on a terminal, never broken when piped."""
    prose(Text(printable(line), style=style), out or console())


def prose(text: Text, out: Console) -> None:
    """Text that is not a table: a terminal wraps it at word boundaries; piped, a line
    stays one line (a reader or a script splits it on newlines, not on a width)."""
    out.print(text, soft_wrap=not out.is_terminal)


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
    "PIPED_WIDTH",
    "WORKSPACE_HELP",
    "Parser",
    "WorkspaceChoice",
    "add_json_arg",
    "add_store_arg",
    "add_workspace_arg",
    "choose_workspace",
    "commands",
    "console",
    "git_root",
    "open_store",
    "print_found",
    "print_json",
    "prose",
    "say",
    "store_path",
]
