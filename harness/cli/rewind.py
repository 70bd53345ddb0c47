"""``harness rewind [CONVERSATION] --to TURN [--force]``: a conversation back to before
turn TURN (``harness.revert.restore``, as ``harness.conversation.restore`` does): every file as it
was before that turn, and the next ``--continue`` carries on from the turn before. The
conversation is the workspace's latest by default (``-w``); its id is its first run's, as
``harness trace runs`` and a run's JSON show it. A file changed since by someone else
refuses the whole rewind (listed, nothing changed) unless ``--force``.

Exit status: 0 when rewound, 1 when refused or there is no such conversation or turn.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from harness.cli.args import (
    EXIT_FAILED,
    add_json_arg,
    add_store_arg,
    add_workspace_arg,
    choose_workspace,
    open_store,
)
from harness.cli.output import console, print_json, say
from harness.errors import ConfigError

if TYPE_CHECKING:
    from harness.revert.restore import RestoreResult


def register(sub: Any) -> None:
    p = sub.add_parser("rewind", help="put a conversation back to before one of its turns")
    p.add_argument(
        "conversation",
        type=int,
        nargs="?",
        metavar="CONVERSATION",
        help="the conversation's id (default: the workspace's latest)",
    )
    p.add_argument("--to", type=int, required=True, metavar="TURN", help="the turn to go before")
    p.add_argument(
        "--force",
        action="store_true",
        help="overwrite files changed since the agent wrote them (default: refuse)",
    )
    add_workspace_arg(p)
    add_store_arg(p)
    add_json_arg(p, "the result")
    p.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    from harness.revert.restore import NoSuchTurn, restore
    from harness.run.conversation import latest_conversation

    with open_store(args) as store:
        conversation = args.conversation
        if conversation is None:
            conversation = latest_conversation(store, choose_workspace(args.workspace).root)
        runs = store.conversation_runs(conversation)
        if not runs:
            raise ConfigError(f"no conversation {conversation} in {store.path}")
        if any(r.outcome is None for r in runs):
            raise ConfigError(f"a run of conversation {conversation} is in progress")
        try:
            result = restore(store, runs, args.to, force=args.force)
        except NoSuchTurn as exc:
            print(f"harness: --to: {exc}", file=sys.stderr)
            return EXIT_FAILED
    if args.json:
        print_json(result.to_json())
    else:
        _print(result)
    return EXIT_FAILED if result.refused else 0


def _print(result: RestoreResult) -> None:
    out = console()
    for f in result.files:
        line = f"  {f.action.value} {f.path}" + (f": {f.reason}" if f.reason else "")
        say(line, out, style="red" if f.action.value == "refused" else "")
    if result.refused:
        say("not rewound: files are in the way (--force overwrites them)", out, style="red")
        return
    runs = ", ".join(map(str, result.rewound))
    say(
        f"conversation {result.conversation_id} is back before turn {result.turn} "
        f"(runs {runs} rewound; the next --continue carries on from there)",
        out,
    )


__all__ = ["command", "register"]
