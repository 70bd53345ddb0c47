"""Conversations (§11): the runs a user started one after another in a workspace. A
follow-up (``harness.run`` with ``conversationId``, ``harness run --continue``, a line of
``harness chat``) is the next run of a conversation: its goal is a new user turn and its
context is the conversation so far, continued from the snapshot the previous turn's last
committed step left in the store (``harness.context.snapshot``). Resuming an interrupted,
cancelled or exhausted run is the same thing.

``harness.run.session.open_session`` with ``RunRequest(conversation_id=...)`` is the entry
every front calls; this module finds what it continues from and says what is wrong in one
line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.contract import RunMode

from harness.context.snapshot import Snapshot, SnapshotError, load
from harness.errors import ConfigError
from harness.ledger import USER, Ledger
from harness.store import Store


@dataclass(frozen=True)
class Attachment:
    """What the user pointed at (§11 "Editor context"): a file, or ``limit`` lines of it
    from line ``offset`` (1-based). The run reads it at step 0, through the same policy and
    containment as the model's reads, so §3 staleness applies to it."""

    path: str  # absolute, or relative to the workspace
    offset: int | None = None
    limit: int | None = None

    def relative(self, root: Path) -> str:
        """The path as the read tool takes it: relative when inside ``root``."""
        path = Path(self.path)
        if path.is_absolute() and path.is_relative_to(root):
            return path.relative_to(root).as_posix()
        return self.path

    def arguments(self, root: Path) -> dict[str, object]:
        lines = {"offset": self.offset, "limit": self.limit}
        return {"path": self.relative(root), **{k: v for k, v in lines.items() if v}}

    def describe(self, root: Path) -> str:
        if self.offset is None:
            return self.relative(root)
        last = self.offset + (self.limit or 1) - 1
        return f"{self.relative(root)}, lines {self.offset}–{last}"


def attached_text(attachments: Sequence[Attachment], root: Path) -> str:
    """What the frame (or a follow-up's turn) says the user attached; "" for nothing."""
    if not attachments:
        return ""
    listed = "\n".join(f"- {a.describe(root)}" for a in attachments)
    return f"The user attached:\n{listed}\n(each is shown below as a read at step 0)"


@dataclass(frozen=True)
class FollowUp:
    """What a follow-up continues: its conversation, the turn it will be, and the context
    snapshot of the latest run that committed a step (None: no run did)."""

    conversation_id: int
    turn: int
    snapshot: Snapshot | None


def conversation_of(store: Store, run_id: int) -> int:
    """The conversation run ``run_id`` belongs to (``--continue RUN``)."""
    run = store.get_run(run_id)
    if run is None:
        raise ConfigError(f"no run {run_id} in {store.path}")
    return run.conversation_id if run.conversation_id is not None else run.run_id


def latest_conversation(store: Store, root: Path) -> int:
    """The conversation of the workspace's newest run (``--continue`` with no RUN)."""
    run_id = store.latest_run(str(root))
    if run_id is None:
        raise ConfigError(f"no run in {root} to continue; start one without --continue")
    return conversation_of(store, run_id)


def follow_up(store: Store, conversation_id: int, root: Path) -> FollowUp:
    """The follow-up of ``conversation_id`` in the workspace ``root``; a ``ConfigError``
    when there is none, it is another workspace's, or its last run is still going."""
    runs = store.conversation_runs(conversation_id)
    if not runs:
        raise ConfigError(f"no conversation {conversation_id} in {store.path}")
    if Path(runs[0].workspace) != root:
        raise ConfigError(
            f"conversation {conversation_id} is of another workspace ({runs[0].workspace})"
        )
    last = runs[-1]
    if last.outcome is None:
        raise ConfigError(
            f"run {last.run_id} of conversation {conversation_id} is still running; "
            "wait for it to finish or cancel it, then continue"
        )
    for run in reversed([r for r in runs if not r.rewound]):  # a rewound turn is never sent
        text = store.run_context(run.run_id)
        if text is None:
            continue
        try:
            return FollowUp(conversation_id, last.turn + 1, load(text))
        except SnapshotError as exc:
            raise ConfigError(f"cannot continue run {run.run_id}: {exc}") from None
    return FollowUp(conversation_id, last.turn + 1, None)


TURN_CRITERION = "# Success criterion (this turn)\n"


def stated_criterion(frame: str, ledger: Ledger) -> str:
    """The text that last told the model how success is decided: the latest follow-up that
    said one, else the conversation's frame."""
    for obs in reversed(ledger.observations()):
        if obs.kind == USER and TURN_CRITERION in obs.text:
            return obs.text
    return frame


def follow_up_text(
    goal: str,
    turn: int,
    criterion: str,
    previous: Snapshot,
    attached: str = "",
    *,
    mode: RunMode = "code",
) -> str:
    """The user's turn as the model reads it, after the conversation so far (``previous``).
    ``criterion`` (this run's: each run has its check, an editor sets one per run) is said
    when it is not what the model was last told; a plan- or ask-mode turn says its mode
    (the conversation's frame was its first turn's)."""
    from harness.prompts import MODE_SECTIONS

    if criterion in stated_criterion(previous.frame, previous.ledger):
        criterion = ""
    section = MODE_SECTIONS.get(mode, "").strip()
    return (
        (
            f"# Follow-up (turn {turn})\n{goal}\n\n"
            "The task above was the conversation's first turn; this is what the user asks now. "
            "Your earlier turns and their results are above."
        )
        + (f"\n\n{TURN_CRITERION}{criterion}" if criterion else "")
        + (f"\n\n{section}" if section else "")
        + (f"\n\n{attached}" if attached else "")
    )


__all__ = [
    "Attachment",
    "FollowUp",
    "attached_text",
    "conversation_of",
    "follow_up",
    "follow_up_text",
    "latest_conversation",
    "stated_criterion",
]
