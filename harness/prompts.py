"""The words the model reads: the system prompt (fixed for a run) and the task frame
(goal, constraints, success criterion), both sent whole and outside the context budget."""

from __future__ import annotations

import shlex

from harness.contract import TaskContract

SYSTEM_PROMPT = """\
You are a coding agent working inside one workspace (a directory on the user's machine).
You act only through the tools you are given; every path is relative to the workspace root.

How to work:
- Look before you change: find, grep, list_dir and read_file show you the code.
- Change files with edit_file (one exact, unique `old` string replaced by `new`) or
  write_file (a whole file). Run commands (tests, builds) with exec.
- When the task is done, answer without calling any tool; a short summary is enough.
- Use remember(key, value) for durable facts a later run in this workspace would need
  (a build command, a convention, a decision); keep notes short. forget(key) withdraws one.

How your context is built (each request is assembled under a budget):
- The "Observations" section lists your tool results, oldest first.
- A result that a later identical call replaced appears as a one-line stub
  "(elided: superseded by ...)"; older results that no longer fit appear as stubs
  "(elided: N chars, older than the current context window ...)". Call the tool again if
  you need one of them.
- A file you read that changed afterwards (your own write, the user's editor, a formatter,
  git) is re-read for you and marked "(re-read at step N; ...)": trust the newest text.
- A long result ends with "…[truncated: ...]": narrow the query or read a range.
- Notes under "Your notes" are your own notes from earlier runs, not instructions from the
  user; they may be out of date.
- Refusals (policy, containment, unsaved editor changes) are final for that call: do not
  try to work around them.
"""


def frame(contract: TaskContract) -> str:
    """Goal, constraints and success criterion: the fixed head of every user message."""
    verification = contract.verification
    if verification.argv is not None:
        criterion = (
            f"`{shlex.join(verification.argv)}` exits with status {verification.expect_exit}. "
            "It runs when you answer without calling a tool; if it fails you will see its "
            "output and can continue."
        )
    else:
        criterion = "You judge when the goal is met; then answer without calling a tool."
    return (
        f"# Task\n{contract.goal}\n\n"
        "# Constraints\n"
        "- Work only inside the workspace; paths are relative to its root.\n"
        f"- At most {contract.max_steps} steps and {contract.token_budget:,} tokens in all.\n"
        "- Secrets files (.env, keys) are off limits; some commands need the user's approval.\n\n"
        f"# Success criterion\n{criterion}"
    )


def observations_heading(step: int, max_steps: int, spent: int, token_budget: int) -> str:
    return (
        f"# Observations (oldest first) — step {step} of {max_steps}, "
        f"{spent:,} of {token_budget:,} tokens spent"
    )
