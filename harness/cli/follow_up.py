"""What ``harness run``'s arguments say about the conversation (§11): the goal and the run
``--continue`` names, the conversation to follow up, and the goal of a follow-up that gives
none (after a plan: "Carry out the plan above.", issue 33)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.args import open_store
from harness.errors import ConfigError

if TYPE_CHECKING:
    from harness.store import Store


def goal_and_run(args: argparse.Namespace) -> None:
    """``--continue 7 GOAL``, ``--continue GOAL`` and ``GOAL --continue`` all mean what
    they say: ``args.goal`` the goal, ``args.continue_run`` a run id, "" (the latest) or
    None (a new conversation)."""
    run = args.continue_run
    if args.goal is None and run and not run.isdigit():
        args.goal, args.continue_run = run, ""
    if args.goal is None and (args.continue_run is None or getattr(args, "plan", False)):
        raise ConfigError("the following arguments are required: goal")
    if args.continue_run and not args.continue_run.isdigit():
        raise ConfigError(f"--continue: expected a run id, got {args.continue_run!r}")


def plan_follow_up(args: argparse.Namespace, root: Path) -> str:
    """``--continue`` with no goal: "Carry out the plan above." after a plan (issue 33)."""
    from harness.run.plan_goal import follow_up_goal

    with open_store(args) as store:
        goal = follow_up_goal(store, continued(args, store, root) or 0)
    if goal is None:
        raise ConfigError("a goal is required: the turn before was not a plan (--plan)")
    return goal


def continued(args: argparse.Namespace, store: Store, root: Path) -> int | None:
    """The conversation ``--continue`` names (None: a new one)."""
    from harness.run.conversation import conversation_of, latest_conversation

    if args.continue_run is None:
        return None
    if args.continue_run:
        return conversation_of(store, int(args.continue_run))
    return latest_conversation(store, root)


__all__ = ["continued", "goal_and_run", "plan_follow_up"]
