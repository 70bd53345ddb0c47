"""``harness memory list|get|write|delete|clear|pin``: the operator's view of what the agent
remembers (§8). Each takes ``[-w DIR] [--global] [--store PATH] [--json]``; ``-w`` defaults
to the current directory. ``--json`` prints the §8.1 note shape (``list``: an array of them).

Exit status: 0 on success, 1 when the note is not there, 2 for a usage error.

Human output escapes every control character (``harness.escape.printable``): an agent wrote
most notes, and an escape sequence in one could redraw the operator's terminal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness.cli.common import add_store_arg, open_store, print_json
from harness.cli.common import console as wide_console
from harness.contract import MemoryLimits
from harness.errors import ConfigError, MemoryInputError
from harness.escape import printable
from harness.memory.notes import KINDS, MemoryNote, MemoryWriteResult
from harness.memory.text import GLOBAL, check_key, scope_key

EXIT_NOT_FOUND = 1
LIST_VALUE_CHARS = 120


def register(sub: Any) -> None:
    """Add ``memory`` and its subcommands to the ``harness`` subparsers."""
    p = sub.add_parser("memory", help="list, read, write, pin and delete the agent's notes")
    msub = p.add_subparsers(dest="memory_command", required=True, parser_class=type(p))
    common = argparse.ArgumentParser(add_help=False)
    where = common.add_mutually_exclusive_group()
    where.add_argument(
        "-w", "--workspace", metavar="DIR", default=None, help="workspace (default: .)"
    )
    where.add_argument(
        "--global", dest="global_scope", action="store_true", help="the global notes instead"
    )
    add_store_arg(common)
    common.add_argument("--json", action="store_true", help="print JSON (§8.1 shapes)")

    msub.add_parser("list", parents=[common], help="every note of the scope").set_defaults(
        func=_list
    )
    get = msub.add_parser("get", parents=[common], help="one note")
    get.add_argument("key")
    get.set_defaults(func=_get)
    write = msub.add_parser("write", parents=[common], help="write an operator note")
    write.add_argument("key")
    write.add_argument("value")
    write.add_argument("--kind", choices=KINDS, default="decision", help="default: decision")
    write.add_argument("--pin", action="store_true", help="pin it: runs cannot change it")
    write.set_defaults(func=_write)
    delete = msub.add_parser("delete", parents=[common], help="delete a note (pinned too)")
    delete.add_argument("key")
    delete.set_defaults(func=_delete)
    msub.add_parser(
        "clear", parents=[common], help="delete every note of the scope (pinned too)"
    ).set_defaults(func=_clear)
    pin = msub.add_parser("pin", parents=[common], help="pin a note (or --unpin it)")
    pin.add_argument("key")
    pin.add_argument("--unpin", action="store_true")
    pin.set_defaults(func=_pin)


# -- handlers ---------------------------------------------------------------------------------


def _list(args: argparse.Namespace) -> int:
    scope = _scope(args)
    with open_store(args) as store:
        notes = store.memory_list(scope)
        usage = store.memory_usage(scope)
    if args.json:
        print_json([n.to_json() for n in notes])
        return 0
    limits = MemoryLimits()
    console = wide_console()
    console.print(
        Text(
            printable(
                f"{_label(scope)}: {usage.entries} of {limits.max_entries} notes,"
                f" {usage.chars:,} of {limits.max_chars:,} chars, {usage.pinned} pinned"
            )
        ),
        soft_wrap=True,
    )
    if not notes:
        return 0
    table = Table(box=None)
    table.add_column("key", overflow="fold", min_width=12)
    table.add_column("value", overflow="fold", ratio=1)
    for column in ("kind", "pinned", "written by", "recalls", "updated"):
        table.add_column(column, no_wrap=True)
    for n in notes:
        table.add_row(
            Text(printable(n.key)),
            Text(_cut(printable(n.value), LIST_VALUE_CHARS)),
            Text(printable(n.kind)),
            Text("yes" if n.pinned else ""),
            Text(_author(n)),
            Text(f"{n.recalls} ({n.recall_runs} runs)"),
            Text(printable(n.updated_at)),
        )
    console.print(table)
    return 0


def _get(args: argparse.Namespace) -> int:
    scope = _scope(args)
    with open_store(args) as store:
        note = store.memory_get(scope, _key(args.key))
    if note is None:
        return _not_found(args.key, scope)
    if args.json:
        print_json(note.to_json())
        return 0
    _print_note(note)
    return 0


def _write(args: argparse.Namespace) -> int:
    scope = _scope(args)
    with open_store(args) as store:
        try:
            result = store.memory_write(
                scope,
                args.key,
                args.value,
                None,
                None,
                args.kind,
                pinned=True if args.pin else None,
            )
        except MemoryInputError as exc:
            raise ConfigError(str(exc)) from exc
    if args.json:
        print_json(result.to_json())
        return 0
    _print_write(result, scope)
    return 0


def _delete(args: argparse.Namespace) -> int:
    scope = _scope(args)
    with open_store(args) as store:
        note = store.memory_delete(scope, _key(args.key))
    if note is None:
        return _not_found(args.key, scope)
    if args.json:
        print_json({"deleted": 1, "note": note.to_json()})
        return 0
    _say(f"deleted `{note.key}` from {_label(scope)}")
    return 0


def _clear(args: argparse.Namespace) -> int:
    scope = _scope(args)
    with open_store(args) as store:
        deleted = store.memory_clear(scope)
    if args.json:
        print_json({"deleted": deleted})
        return 0
    _say(f"deleted {deleted} note{'' if deleted == 1 else 's'} from {_label(scope)}")
    return 0


def _pin(args: argparse.Namespace) -> int:
    scope = _scope(args)
    with open_store(args) as store:
        note = store.memory_pin(scope, _key(args.key), not args.unpin)
    if note is None:
        return _not_found(args.key, scope)
    if args.json:
        print_json(note.to_json())
        return 0
    _say(f"{'unpinned' if args.unpin else 'pinned'} `{note.key}` in {_label(scope)}")
    return 0


# -- helpers ----------------------------------------------------------------------------------


def _scope(args: argparse.Namespace) -> str:
    if args.global_scope:
        return GLOBAL
    return scope_key(Path(args.workspace or "."))


def _key(key: str) -> str:
    """A key as given on the command line; a malformed one is a usage error."""
    try:
        return check_key(key)
    except MemoryInputError as exc:
        raise ConfigError(str(exc)) from exc


def _label(scope: str) -> str:
    return "global memory" if scope == GLOBAL else f"workspace {scope}"


def _author(note: MemoryNote) -> str:
    return "operator" if note.run_id is None else f"run {note.run_id} step {note.step}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _not_found(key: str, scope: str) -> int:
    print(printable(f"harness: no note `{key.strip()}` in {_label(scope)}"), file=sys.stderr)
    return EXIT_NOT_FOUND


def _say(line: str) -> None:
    Console(highlight=False).print(Text(printable(line)), soft_wrap=True)


def _print_note(note: MemoryNote) -> None:
    console = Console(highlight=False)
    for name, value in (
        ("key", note.key),
        ("scope", _label(note.scope_key)),
        ("kind", note.kind + (", pinned" if note.pinned else "")),
        ("written by", _author(note)),
        ("created", note.created_at),
        ("updated", note.updated_at),
        ("recalls", f"{note.recalls} ({note.recall_runs} runs)"),
    ):
        console.print(Text(printable(f"{name}: {value}")), soft_wrap=True)
    # The value keeps its line breaks; any other control character is shown escaped.
    console.print(Text(printable(note.value, keep_newlines=True)), soft_wrap=True)


def _print_write(result: MemoryWriteResult, scope: str) -> None:
    note = result.note
    assert note is not None
    verb = "replaced" if result.replaced else "stored"
    pinned = ", pinned" if note.pinned else ""
    _say(f"{verb} `{note.key}` in {_label(scope)} ({len(note.value):,} chars{pinned})")
    if result.truncated:
        _say(f"the value had {result.original_chars:,} chars and was cut to {len(note.value):,}")
    for gone in result.evicted:
        _say(f"evicted `{gone.key}` ({gone.recall_runs} runs recalled it): {_cut(gone.value, 80)}")
    if result.over_cap:
        _say("still over the cap: every other note is pinned")
    for other in result.similar:
        _say(f"similar to `{other.key}` ({other.jaccard:.0%} of words): {_cut(other.value, 80)}")


__all__ = ["register"]
