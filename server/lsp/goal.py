"""The goal of a ``harness.run`` when the arguments do not spell it (issue 33): a code-mode
follow-up of a plan-mode turn carries the plan as its task."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.lsp.errors import InvalidParams
from server.lsp.params import RunParams

if TYPE_CHECKING:
    from server.lsp.host import RunHost

from harness.run.plan_goal import CARRY_OUT, follow_up_goal


def resolve_goal(host: RunHost, params: RunParams) -> RunParams:
    """``params`` with its goal: as given; or, in a code-mode follow-up whose previous turn
    was a plan, "Carry out the plan above." (the plan is the previous turn's words, in the
    follow-up's context). Anything else without a goal is InvalidParams."""
    if params.prompt is not None:
        return _prompted(host, params)
    if params.goal is not None:
        return params
    if params.conversation_id is not None and params.mode == "code":
        goal = follow_up_goal(host.store(), params.conversation_id)
        if goal is not None:
            return params.model_copy(update={"goal": goal})
    raise InvalidParams(
        "`goal` is required (only a code-mode follow-up of a plan may leave it out)"
    )


def _prompted(host: RunHost, params: RunParams) -> RunParams:
    """The goal a named prompt expands to (issue 33); ``/plan`` is a plan-mode run of its
    arguments; the other built-ins are the client's to carry out."""
    from harness.prompt_files import PromptError, expand, find_prompt

    if params.goal is not None:
        raise InvalidParams("give `goal` or `prompt`, not both")
    name, arguments = params.prompt or "", params.arguments or ""
    root = host.folder(params.workspace_folder)
    try:
        prompt = find_prompt(name, root)
        if prompt.source == "builtin":
            if name != "plan" or not isinstance(arguments, str) or not arguments.strip():
                raise PromptError(f"/{name} is the client's to carry out, not a run's goal")
            return params.model_copy(update={"goal": arguments, "mode": "plan", "prompt": None})
        goal = expand(prompt, arguments)
    except (PromptError, OSError, UnicodeDecodeError) as exc:
        raise InvalidParams(str(exc)) from None
    if not goal:
        raise InvalidParams(f"prompt {name!r} expands to nothing")
    return params.model_copy(update={"goal": goal})


def mark_prompt(host: RunHost, params: RunParams, run_id: int) -> None:
    """The trace says which prompt a run's goal came from, and whose (a ``prompt`` event at
    step 0: ``{"name", "source": "user"|"repository", "path"}``)."""
    from harness.prompt_files import find_prompt
    from harness.types import TraceEvent

    if params.prompt is None:
        return
    prompt = find_prompt(params.prompt, host.folder(params.workspace_folder))
    detail = {"name": prompt.name, "source": prompt.source, "path": str(prompt.path)}
    host.store().add_events(run_id, 0, [TraceEvent("prompt", detail)])


__all__ = ["CARRY_OUT", "mark_prompt", "resolve_goal"]
