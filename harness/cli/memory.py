"""``harness memory list|get|write|delete|clear|pin``: the operator's view of what the agent
remembers (§8). Each takes ``[-w DIR] [--global] [--store PATH] [--json]``; ``-w`` defaults
to the git root of the current directory, else the directory (as for ``run``). ``--json``
prints the §8.1 note shape (``list``: an array of them).

``clear`` deletes every note of the scope, pinned ones too (they are the operator's own, so
the question names them), after asking on a terminal; ``--yes`` skips the question,
``--keep-pinned`` keeps them, and with neither a terminal nor ``--yes`` it refuses.

Exit status: 0 on success, 1 when the note is not there (or clear was answered no), 2 for a
usage error.

Human output escapes every control character (``harness.escape.printable``): an agent wrote
most notes, and an escape sequence in one could redraw the operator's terminal.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harness.cli.args import (
    EXIT_FAILED,
    EXIT_USAGE,
    add_json_arg,
    add_store_arg,
    add_workspace_arg,
    choose_workspace,
    commands,
    open_store,
)
from harness.cli.output import console, print_found, print_json, say
from harness.cli.table import Column, render
from harness.cli.times import local_date
from harness.errors import ConfigError, MemoryInputError
from harness.escape import printable
from harness.memory.notes import KINDS, MemoryNote, MemoryWriteResult
from harness.memory.text import GLOBAL, check_key

EXIT_NOT_FOUND = 1


def register(sub: Any) -> None:
    """Add ``memory`` and its subcommands to the ``harness`` subparsers."""
    p = sub.add_parser("memory", help="list, read, write, pin and delete the agent's notes")
    msub = commands(p, "memory_command")
    common = argparse.ArgumentParser(add_help=False)
    where = common.add_mutually_exclusive_group()
    add_workspace_arg(where)
    where.add_argument(
        "--global",
        dest="global_scope",
        action="store_true",
        help="the global notes instead of the workspace's (default: off)",
    )
    add_store_arg(common)
    add_json_arg(common, "the result")

    msub.add_parser("list", parents=[common], help="every note of the scope").set_defaults(
        func=_list
    )
    get = msub.add_parser("get", parents=[common], help="one note")
    get.add_argument("key")
    get.set_defaults(func=_get)
    write = msub.add_parser("write", parents=[common], help="write an operator note")
    write.add_argument("key")
    write.add_argument("value")
    write.add_argument(
        "--kind", choices=KINDS, default="decision", help="the kind of note (default: decision)"
    )
    write.add_argument(
        "--pin", action="store_true", help="pin it: runs cannot change it (default: off)"
    )
    write.set_defaults(func=_write)
    delete = msub.add_parser("delete", parents=[common], help="delete a note (pinned too)")
    delete.add_argument("key")
    delete.set_defaults(func=_delete)
    clear = msub.add_parser(
        "clear", parents=[common], help="delete every note of the scope, after asking"
    )
    clear.add_argument("--yes", action="store_true", help="do not ask (default: ask on a terminal)")
    clear.add_argument(
        "--keep-pinned", action="store_true", help="keep the pinned notes (default: off)"
    )
    clear.set_defaults(func=_clear)
    pin = msub.add_parser("pin", parents=[common], help="pin a note (or --unpin it)")
    pin.add_argument("key")
    pin.add_argument("--unpin", action="store_true", help="unpin it instead (default: off)")
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
    from harness.contract import MemoryLimits  # pydantic: only when the notes are shown

    limits = MemoryLimits()
    out = console()
    say(
        f"{_label(scope)}: {usage.entries} of {limits.max_entries} notes,"
        f" {usage.chars:,} of {limits.max_chars:,} chars, {usage.pinned} pinned",
        out,
    )
    if notes:
        lines, _ = render(LIST_COLUMNS, [_row(n) for n in notes], out.width)
        for line in lines:
            out.print(line, soft_wrap=True)
    return 0


# The key is the note's id: it shrinks last (to 20 cells) and the value takes what is left.
LIST_COLUMNS = (
    Column("key", min_width=20, max_width=64),
    Column("value", min_width=10),
    Column("kind", "fixed"),
    Column("pin", "fixed"),
    Column("by", min_width=8, max_width=40),  # operator or run·step, then user@host (§12)
    Column("recalls", "fixed"),
    Column("updated", "fixed"),
)


def _row(n: MemoryNote) -> list[str]:
    by = "operator" if n.run_id is None else f"run {n.run_id}·{n.step}"
    return [
        n.key,
        " ".join(n.value.split()),
        n.kind,
        "yes" if n.pinned else "",
        f"{by} {n.author}" if n.author else by,
        f"{n.recalls} ({n.recall_runs})",
        local_date(n.updated_at),
    ]


def _get(args: argparse.Namespace) -> int:
    scope = _scope(args)
    with open_store(args) as store:
        note = store.memory_get(scope, _key(args.key))
    return print_found(args, note, _missing(args.key, scope), _print_note)


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
    label = _label(scope)
    return print_found(
        args,
        note,
        _missing(args.key, scope),
        lambda n: _say(f"deleted `{n.key}` from {label}"),
        lambda n: {"deleted": 1, "note": n.to_json()},
    )


def _clear(args: argparse.Namespace) -> int:
    scope = _scope(args)
    with open_store(args) as store:
        notes = store.memory_list(scope)
        pinned = [n.key for n in notes if n.pinned]
        doomed = [n for n in notes if not (args.keep_pinned and n.pinned)]
        refused = None if not doomed or args.yes else _ask(scope, doomed, pinned)
        if refused is not None:
            return refused
        if args.keep_pinned:
            deleted = sum(1 for n in doomed if store.memory_delete(scope, n.key) is not None)
        else:
            deleted = store.memory_clear(scope) if doomed else 0
    gone_pinned = 0 if args.keep_pinned else len(pinned)
    if args.json:
        print_json({"deleted": deleted, "pinned": gone_pinned})
        return 0
    if not notes:
        say(f"no notes in {_label(scope)}")
    elif args.keep_pinned:
        say(f"deleted {_count(deleted)} from {_label(scope)}; kept {len(pinned)} pinned")
    else:
        say(f"deleted {_count(deleted)} from {_label(scope)} ({gone_pinned} pinned)")
    return 0


def _ask(scope: str, doomed: list[MemoryNote], pinned: list[str]) -> int | None:
    """None when the user said yes on the terminal; else the exit status: 1 for no, 2 when
    there is no terminal to ask on (one line on stderr)."""
    lost = [k for k in pinned if any(n.key == k for n in doomed)]
    which = f", {len(lost)} of them pinned ({_cut(', '.join(lost), 60)})" if lost else ""
    question = f"delete {_count(len(doomed))} of {_label(scope)}{which}?"
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        kept = f" ({len(lost)} pinned)" if lost else ""
        print(
            printable(
                f"harness: memory clear would delete {_count(len(doomed))}{kept} of "
                f"{_label(scope)}; run it on a terminal to be asked, or add --yes"
            ),
            file=sys.stderr,
        )
        return EXIT_USAGE
    sys.stderr.write(printable(question) + " [y/N] ")
    sys.stderr.flush()
    if sys.stdin.readline().strip().casefold() in ("y", "yes"):
        return None
    say("nothing deleted", console(stderr=True))
    return EXIT_FAILED


def _count(n: int) -> str:
    return f"{n} note" if n == 1 else f"{n} notes"


def _pin(args: argparse.Namespace) -> int:
    scope = _scope(args)
    with open_store(args) as store:
        note = store.memory_pin(scope, _key(args.key), not args.unpin)
    verb, label = "unpinned" if args.unpin else "pinned", _label(scope)
    return print_found(
        args, note, _missing(args.key, scope), lambda n: _say(f"{verb} `{n.key}` in {label}")
    )


# -- helpers ----------------------------------------------------------------------------------


def _scope(args: argparse.Namespace) -> str:
    """``global``, or the workspace folder's path (the store keys it by its identity, and
    records the folder as where an operator note was written)."""
    if args.global_scope:
        return GLOBAL
    return str(choose_workspace(args.workspace, home_ok=True).root)


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


def _missing(key: str, scope: str) -> str:
    """What is said when there is no note ``key`` (exit status 1: ``EXIT_NOT_FOUND``)."""
    return printable(f"harness: no note `{key.strip()}` in {_label(scope)}")


def _say(line: str) -> None:
    say(line)


def _print_note(note: MemoryNote) -> None:
    from rich.text import Text

    out = console()
    for name, value in (
        ("key", note.key),
        ("scope", _label(note.scope_key)),
        ("kind", note.kind + (", pinned" if note.pinned else "")),
        ("written by", _author(note)),
        ("author", f"{note.author or 'unknown'} in {note.author_path or 'unknown'}"),
        ("created", note.created_at),
        ("updated", note.updated_at),
        ("recalls", f"{note.recalls} ({note.recall_runs} runs)"),
    ):
        out.print(Text(printable(f"{name}: {value}")), soft_wrap=True)
    # The value keeps its line breaks; any other control character is shown escaped.
    out.print(Text(printable(note.value, keep_newlines=True)), soft_wrap=True)


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
