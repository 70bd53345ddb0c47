"""The goal of a follow-up that gives none (issue 33): a code-mode follow-up of a plan-mode
turn carries the plan as its task — the plan is the previous turn's words, in the
follow-up's context — so "Carry out the plan above." is all it needs to say. Shared by the
CLI (``harness run --continue`` with no goal) and the language server (``harness.run``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.store import Store

CARRY_OUT = "Carry out the plan above."


def follow_up_goal(store: Store, conversation_id: int) -> str | None:
    """``CARRY_OUT`` when the conversation's last turn was a plan; else None."""
    runs = store.conversation_runs(conversation_id)
    return CARRY_OUT if runs and runs[-1].mode == "plan" else None


__all__ = ["CARRY_OUT", "follow_up_goal"]
