"""What an ACP session offers beyond prompts (issue 38): its modes — ``ask`` (read-only
answers), ``plan`` (plan mode, issue 33), ``code`` (the default) — and its ``/`` commands,
the prompts of ``harness.prompts`` (built-ins, the user's, the repository's, each with its
source in its description) sent as ``available_commands_update``; ``/name args`` typed as
a prompt is expanded as ``harness.run {prompt, arguments}`` expands it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from acp import RequestError
from acp.helpers import update_available_commands
from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
    UnstructuredCommandInput,
)

if TYPE_CHECKING:
    from harness.contract import RunMode

MODES: tuple[SessionMode, ...] = (
    SessionMode(id="ask", name="Ask", description="Reads and answers; changes nothing"),
    SessionMode(id="plan", name="Plan", description="Reads, then proposes a plan to review"),
    SessionMode(id="code", name="Code", description="Reads, changes files, runs commands"),
)
MODE_IDS: tuple[RunMode, ...] = ("ask", "plan", "code")
SLASH = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_.-]{0,99})(?:\s+(.*))?", re.DOTALL)
# The built-ins the editor (not the agent) carries out over ACP: what to do instead.
ELSEWHERE = {
    "new": "Start a new session in your editor: each session is a conversation.",
    "undo": "Reject the changes in your editor's review, or run `harness rewind` in a terminal.",
    "memory": "Run `harness memory list` in a terminal to see the notes the agent keeps.",
}


def mode_state(current: RunMode) -> SessionModeState:
    return SessionModeState(current_mode_id=current, available_modes=list(MODES))


def run_mode(mode_id: str) -> RunMode:
    for mode in MODE_IDS:
        if mode == mode_id:
            return mode
    known = ", ".join(MODE_IDS)
    raise RequestError.invalid_params({"modeId": f"no mode {mode_id!r}; the modes: {known}"})


def model_options(current: str, others: Sequence[str]) -> list[SessionConfigOptionSelect]:
    """The session's model as ACP's ``model`` config option: ``current`` and ``others``."""
    names = list(dict.fromkeys([current, *others]))
    return [
        SessionConfigOptionSelect(
            id="model", name="Model", category="model", type="select", current_value=current,
            options=[SessionConfigSelectOption(value=n, name=n) for n in names],
        )
    ]  # fmt: skip


def chosen_model(config_id: str, value: object, names: Sequence[str]) -> str:
    if config_id != "model":
        raise RequestError.invalid_params({"configId": f"no option {config_id!r}; the one: model"})
    if not isinstance(value, str) or value not in names:
        raise RequestError.invalid_params({"value": f"{value!r} is not one of {', '.join(names)}"})
    return value


def available(root: Path) -> AvailableCommandsUpdate:
    """The session's ``/`` commands: every prompt of ``root``, its source said."""
    from harness.prompt_files import list_prompts

    commands = []
    for prompt in list_prompts(root):
        where = prompt.source
        if prompt.path is not None:
            shown = (
                prompt.path.relative_to(root) if prompt.path.is_relative_to(root) else prompt.path
            )
            where = f"{prompt.source}, {shown}"
        words = prompt.description or prompt.name
        if prompt.error:
            words += f" — cannot be run: {prompt.error}"
        hint = prompt.argument_hint or ("the goal" if prompt.name == "plan" else "")
        given = AvailableCommandInput(UnstructuredCommandInput(hint=hint)) if hint else None
        commands.append(
            AvailableCommand(name=prompt.name, description=f"{words} ({where})", input=given)
        )
    return update_available_commands(commands)


@dataclass(frozen=True)
class Expanded:
    """What a ``/name args`` prompt is: a run's goal in a mode, or an answer given here."""

    goal: str = ""
    mode: RunMode | None = None
    answer: str = ""
    prompt: dict[str, str] | None = None  # the trace's ``prompt`` event: name, source, path


def expand_command(text: str, root: Path, cost: float) -> Expanded | None:
    """``text`` as a ``/`` command, or None when it is not one (a path, an unknown name:
    plain words). Raises ``RequestError`` for a prompt that cannot be run."""
    from harness.prompt_files import PromptError, expand, list_prompts

    match = SLASH.fullmatch(text.strip())
    if match is None:
        return None
    name, arguments = match[1], (match[2] or "").strip()
    prompts = {p.name: p for p in list_prompts(root)}
    prompt = prompts.get(name)
    if prompt is None:
        return None
    if prompt.source == "builtin":
        return _builtin(name, arguments, list(prompts), cost)
    try:
        if prompt.error:
            raise PromptError(f"prompt {name!r} ({prompt.path}): {prompt.error}")
        goal = expand(prompt, arguments)
    except (PromptError, OSError, UnicodeDecodeError) as exc:
        raise RequestError.invalid_params({"prompt": str(exc)}) from None
    if not goal:
        raise RequestError.invalid_params({"prompt": f"/{name} expands to nothing"})
    detail = {"name": name, "source": prompt.source, "path": str(prompt.path)}
    return Expanded(goal=goal, prompt=detail)


def _builtin(name: str, arguments: str, names: list[str], cost: float) -> Expanded:
    if name == "plan":
        if not arguments:
            raise RequestError.invalid_params({"prompt": "/plan needs the goal: /plan GOAL"})
        return Expanded(goal=arguments, mode="plan")
    if name == "cost":
        return Expanded(answer=f"This session has spent ${cost:.4f}.")
    if name == "help":
        return Expanded(answer="The commands: " + ", ".join(f"/{n}" for n in names) + ".")
    return Expanded(answer=ELSEWHERE.get(name, f"/{name} is not available here."))


__all__ = [
    "MODES",
    "Expanded",
    "available",
    "chosen_model",
    "expand_command",
    "mode_state",
    "model_options",
    "run_mode",
]
