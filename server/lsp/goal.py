"""The goal of a ``harness.run`` when the arguments do not spell it (issue 33): a code-mode
follow-up of a plan-mode turn carries the plan as its task."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.lsp.errors import InvalidParams
from server.lsp.params import RunParams

if TYPE_CHECKING:
    from server.lsp.host import RunHost

CARRY_OUT = "Carry out the plan above."


def resolve_goal(host: RunHost, params: RunParams) -> RunParams:
    """``params`` with its goal: as given; or, in a code-mode follow-up whose previous turn
    was a plan, "Carry out the plan above." (the plan is the previous turn's words, in the
    follow-up's context). Anything else without a goal is InvalidParams."""
    if params.goal is not None:
        return params
    if params.conversation_id is not None and params.mode == "code":
        runs = host.store().conversation_runs(params.conversation_id)
        if runs and runs[-1].mode == "plan":
            return params.model_copy(update={"goal": CARRY_OUT})
    raise InvalidParams(
        "`goal` is required (only a code-mode follow-up of a plan may leave it out)"
    )


__all__ = ["CARRY_OUT", "resolve_goal"]
