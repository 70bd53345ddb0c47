"""What every subcommand prints with: the consoles (their width and colour), JSON output,
a thing looked up or its absence, and one line of text.

Width: ``COLUMNS`` when set, else the terminal's, else 120 columns when piped. Colour only
on a terminal, and never with ``NO_COLOR`` set (rich honours it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from harness.cli.args import EXIT_FAILED, EXIT_OK
from harness.escape import printable

if TYPE_CHECKING:  # rich loads when a command prints, not to parse the arguments
    from rich.console import Console
    from rich.text import Text

PIPED_WIDTH = 120


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
    from rich.console import Console

    out = Console(highlight=False, stderr=stderr)
    if out.is_terminal or os.environ.get("COLUMNS", "").isdigit():
        return out
    return Console(highlight=False, stderr=stderr, width=PIPED_WIDTH)


def say(line: str, out: Console | None = None, *, style: str = "") -> None:
    """One line, escaped (much of what is printed was chosen by a model): wrapped at the
    width on a terminal, never broken when piped."""
    from rich.text import Text

    prose(Text(printable(line), style=style), out or console())


def prose(text: Text, out: Console) -> None:
    """Text that is not a table: a terminal wraps it at word boundaries; piped, a line
    stays one line (a reader or a script splits it on newlines, not on a width)."""
    out.print(text, soft_wrap=not out.is_terminal)


__all__ = ["PIPED_WIDTH", "console", "print_found", "print_json", "prose", "say"]
