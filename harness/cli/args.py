"""The arguments every subcommand shares and what they lead to: the exit statuses, the
parser (a usage error is one line and status 2), ``--store`` and the store it opens,
``--json``, and ``-w/--workspace`` with the workspace it chooses (§8)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from harness.errors import ConfigError
from harness.escape import printable

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


PASSWORD_ON_COMMAND_LINE = (
    "the store URL holds a password, which every local user can read in the process list;"
    " give the URL in $HARNESS_STORE instead, or keep the password in ~/.pgpass ($PGPASSFILE)"
)


def store_argument(value: str) -> str:
    """``--store``'s value, refused when it holds a password: a command line is public
    (``/proc/PID/cmdline``) and Python cannot scrub its own argv (§12)."""
    from harness.store.connection import has_password

    if has_password(value):
        raise argparse.ArgumentTypeError(PASSWORD_ON_COMMAND_LINE)
    return value


def add_store_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store",
        metavar="PATH|URL",
        default=None,
        type=store_argument,
        help="the store: a SQLite file, or a postgresql:// URL for a team's shared store,"
        " never with its password: put that in ~/.pgpass, or the whole URL in $HARNESS_STORE"
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


def choose_workspace(given: str | None, *, home_ok: bool = False) -> WorkspaceChoice:
    """``-w DIR`` when given; else the git root of the current directory; else the
    current directory (§8: the same for ``run`` and ``memory``).

    The home folder or ``/`` is never chosen by default (issue 30, item 1): it holds the
    user's start-up files and credentials. ``ConfigError`` says to name it with ``-w``
    (then the home layers of ``harness.policy.home`` apply); ``home_ok``: a command that
    only names the workspace (``memory``) may default to it."""
    if given:
        return WorkspaceChoice(Path(given).expanduser().resolve(), "")
    cwd = Path.cwd().resolve()
    root = git_root(cwd)
    choice = (
        WorkspaceChoice(cwd, "")
        if root is None
        else WorkspaceChoice(root, "the git root of the current directory")
    )
    from harness.policy.home import is_home_or_top

    if not home_ok and is_home_or_top(choice.root):
        raise ConfigError(_HOME_REFUSED.format(root=printable(str(choice.root))))
    return choice


_HOME_REFUSED = (
    "the workspace would be {root}, your home folder or /, because -w was not given: the "
    "agent could change your shell's start-up files and read your credentials there. Run "
    "in a project folder, or name it with `-w {root}` to really work there (its start-up, "
    "credential and autostart files are then asked about or refused)"
)


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
    "positive_int",
    "share_fraction",
    "store_path",
]


def positive_int(text: str) -> int:
    """An argument that must be an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def share_fraction(text: str) -> float:
    """An argument that must be a number in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}")
    return value
