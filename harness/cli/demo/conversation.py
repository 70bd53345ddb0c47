"""The first contact of ``harness demo``: a scripted two-turn conversation over the generated
project, shown in the live view of ``harness run`` (the model's words as they arrive, a row
per call with ✓/✗ and why, a line when the user's save is re-read, what changed), then the
follow-up, whose first request carries the notes the first turn wrote.

The model is scripted (no key); everything else is real: tools, policy, store, events.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text

from harness.cli.demo import session
from harness.cli.demo.driver import User
from harness.contract import ContractOverrides, Verification
from harness.escape import printable
from harness.policy import Policy, YesApprover
from harness.provider.scripted import ScriptedProvider
from harness.report import RunObserver, RunResult
from harness.revert.changes import RunChanges, run_changes
from harness.run.events import EventSink
from harness.run.session import Backend, RunRequest, build_contract, open_session
from harness.store import Store
from harness.types import Request

FOLLOW_UP = "Now also update the README."
MAX_DIFF_LINES = 8  # of one file's diff; the rest is counted


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def _mod(name: str) -> str:
    return f"src/calc/{name}.py"


FIRST: list[dict[str, Any]] = [
    {
        "content": "I'll find every use of parse_expr first, and look at the settings.",
        "tool_calls": [_call("grep", pattern=r"\bparse_expr\b"), _call("read_file", path=".env")],
    },
    {
        "content": "Reading the parser, the lexer and the test that calls it.",
        "tool_calls": [
            _call("read_file", path=_mod("parser")),
            _call("read_file", path=_mod("lexer")),
            _call("read_file", path="tests/test_calc.py", offset=60, limit=20),
        ],
    },
    {
        "content": "Renaming the definition and its call in the test; then the tests.",
        "tool_calls": [
            *session.rename_calls(),
            _call("exec", argv=session.TEST_ARGV),
        ],
    },
    {
        "content": "You saved the lexer meanwhile; the rename does not touch it. Noting how "
        "the tests run, and checking what is left.",
        "tool_calls": [
            _call("remember", key="test-command", value=" ".join(session.TEST_ARGV)),
            _call("grep", pattern=r"\bparse_expr\b"),
        ],
    },
    {
        "content": "Renamed parse_expr to parse_expression in the parser and its test; "
        "the tests pass. The README still names the old function."
    },
]
USER_SAVES_BEFORE = 2  # "the user" saves lexer.py while the model thinks about turn 3

SECOND: list[dict[str, Any]] = [
    {
        "content": "Updating the README's mention.",
        "tool_calls": [
            _call(
                "edit_file",
                path="README.md",
                old="`parse_expr` is the entry point",
                new="`parse_expression` is the entry point",
            )
        ],
    },
    {"content": "The README now names parse_expression; the tests still pass."},
]


@dataclass(frozen=True)
class Turn:
    """One turn of the conversation as it ran: its result, what it changed, what it sent."""

    result: RunResult
    changes: RunChanges | None
    requests: list[Request]


async def run_turn(
    root: Path,
    store: Store,
    goal: str,
    turns: list[dict[str, Any]],
    *,
    view: RunObserver,
    on_event: EventSink,
    user_saves: bool = False,
    conversation_id: int | None = None,
) -> Turn:
    """One run of the conversation, shown by the caller's live view (``view`` and
    ``on_event``: the command line's ``TerminalObserver``; its end is the caller's to
    print: ``end_lines``, ``diff_lines``);
    ``user_saves``: "the user" saves ``lexer.py`` while the model thinks about turn 3;
    ``conversation_id``: the run follows up that conversation."""
    edits = {USER_SAVES_BEFORE: (session.DISK_EDIT_PATH, session.user_edit)} if user_saves else {}
    user = User(root, edits)
    provider = ScriptedProvider(turns, before_turn=user.turn)
    overrides = ContractOverrides(
        verification=Verification.command(session.TEST_ARGV), max_steps=len(turns) + 2
    )
    started = await open_session(
        build_contract(goal, root, overrides),
        Backend(store=store, provider=provider),
        RunRequest(
            approver=YesApprover(),
            policy=Policy.load(root, user_config=None),
            observer=view,
            on_event=on_event,
            conversation_id=conversation_id,
        ),
    )
    user.notify = started.run.notify_changed  # as the editor's didSave would tell it
    result = await started.execute()
    return Turn(result, run_changes(store, result.run_id), provider.requests)


def diff_lines(changes: RunChanges | None) -> list[Text]:
    """Each changed file's lines removed and added (``MAX_DIFF_LINES`` at most, then how
    many more), escaped."""
    out: list[Text] = []
    for change in changes.files if changes is not None else ():
        before, after = (change.before or "").splitlines(), (change.after or "").splitlines()
        body = [
            line
            for line in difflib.unified_diff(before, after, lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))
        ]
        out.append(Text(printable(f"  {change.path}:"), style="bold"))
        for line in body[:MAX_DIFF_LINES]:
            out.append(Text(printable(f"    {line}"), style="green" if line[0] == "+" else "red"))
        if len(body) > MAX_DIFF_LINES:
            out.append(Text(f"    … {len(body) - MAX_DIFF_LINES} more lines", style="dim"))
    return out


def recalled_notes(request: Request) -> list[str]:
    """The notes a request's memory block carried (its first user message): the block's
    headings and notes, without its preamble; or why none."""
    lead = request.messages[0].parts if request.messages else ()
    block = next((p for p in lead if p.startswith("## Memory")), None)
    if block is None:
        return ["(no notes recalled)"]
    return [line for line in block.splitlines() if line.startswith(("## ", "### ", "- "))]


__all__ = [
    "FIRST",
    "FOLLOW_UP",
    "SECOND",
    "Turn",
    "diff_lines",
    "recalled_notes",
    "run_turn",
]
