"""``harness revert RUN [--force]``: put every file a run wrote back to its content before
the run (``harness.revert``, as the ``harness.run.revert`` command does). A file changed
since by someone else is refused unless ``--force``; a run still in progress is refused.

Prints what happened to each file; ``--json`` prints the same object as the LSP command.
Exit status: 0 when every file is back, 1 when a file was refused or failed or there is no
such run.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from harness.cli.args import EXIT_FAILED, add_json_arg, add_store_arg, open_store
from harness.cli.output import console, print_json, say

if TYPE_CHECKING:  # the revert machinery (and the store) load when the command runs
    from harness.revert import FileRevert, RevertResult

# Keyed by the actions' values: ``RevertAction`` is a ``StrEnum``.
_VERBS = {
    "restored": "restored",
    "deleted": "deleted",
    "unchanged": "unchanged",
    "refused": "refused",
    "failed": "failed",
}


def register(sub: Any) -> None:
    p = sub.add_parser("revert", help="put back every file a run wrote")
    p.add_argument("run", type=int, metavar="RUN", help="the run's id (see harness trace runs)")
    p.add_argument(
        "--force",
        action="store_true",
        help="overwrite files changed since the run wrote them (default: refuse them)",
    )
    add_store_arg(p)
    add_json_arg(p, "the result")
    p.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    from harness.revert import RevertAction, revert_run

    with open_store(args) as store:
        row = store.get_run(args.run)
        if row is None:
            print(f"harness: no run {args.run} in {store.path}", file=sys.stderr)
            return EXIT_FAILED
        if row.outcome is None:
            print(
                f"harness: run {args.run} is still in progress; cancel it first",
                file=sys.stderr,
            )
            return EXIT_FAILED
        result = revert_run(store, args.run, force=args.force)
    assert result is not None  # the run row exists
    if args.json:
        print_json(result.to_json())
    else:
        _print(result)
    bad = result.count(RevertAction.REFUSED) + result.count(RevertAction.FAILED)
    return EXIT_FAILED if bad else 0


def _print(result: RevertResult) -> None:
    out = console()
    say(f"run {result.run_id} · workspace {result.workspace}", out)
    for f in result.files:
        say(_file_line(f), out, style=_style(f))
    for d in result.dirs_removed:
        say(f"  removed {d}/ (created by the run, empty again)", out)
    say(_total(result), out)


def _file_line(f: FileRevert) -> str:
    from harness.revert import RevertAction

    verb = _VERBS[f.action]
    if f.action is RevertAction.DELETED:
        return f"  {verb} {f.path} ({f.reason})" if f.reason else f"  {verb} {f.path}"
    return f"  {verb} {f.path}: {f.reason}" if f.reason else f"  {verb} {f.path}"


def _style(f: FileRevert) -> str:
    from harness.revert import RevertAction

    if f.action in (RevertAction.REFUSED, RevertAction.FAILED):
        return "red"
    return "green" if f.changed_disk else ""


def _total(result: RevertResult) -> str:
    from harness.revert import RevertAction

    counts = [
        f"{result.count(action)} {_VERBS[action]}"
        for action in (
            RevertAction.RESTORED,
            RevertAction.DELETED,
            RevertAction.UNCHANGED,
            RevertAction.REFUSED,
            RevertAction.FAILED,
        )
        if result.count(action)
    ]
    line = f"reverted run {result.run_id}: " + (", ".join(counts) or "the run wrote no files")
    if result.count(RevertAction.REFUSED):
        line += f" (harness revert {result.run_id} --force overwrites them)"
    return line


__all__ = ["command", "register"]
