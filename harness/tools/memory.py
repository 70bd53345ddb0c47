"""The model's memory tools, ``remember`` and ``forget`` (§4). Neither is a path act: they
write keyed notes into the harness's own store through ``ctx.memory`` (a
``harness.memory.RunMemory``), never into the workspace. The registry in ``harness.tools``
includes whatever ``MEMORY_TOOLS`` lists."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import Field

from harness.memory.run import MemoryOutcome, RunMemory
from harness.memory.text import MAX_KEY_CHARS, inline
from harness.tools.base import BaseTool, Tool, ToolArgs, ToolContext, failure, header
from harness.types import ToolResult

_UNAVAILABLE = "memory is not available in this run; carry on without it"


class RememberArgs(ToolArgs):
    key: str = Field(description="A short name for the note, e.g. build-command")
    value: str = Field(description="The note: one or two sentences, the conclusion only")
    scope: Literal["workspace", "global"] = Field(
        default="workspace",
        description="workspace (default): this workspace only; global: every workspace",
    )


class ForgetArgs(ToolArgs):
    key: str = Field(description="The key of the note to remove")
    scope: Literal["workspace", "global"] = Field(
        default="workspace", description="Where the note is: workspace (default) or global"
    )


class Remember(BaseTool, name="remember", args=RememberArgs, target="key"):
    """Write a short keyed note that later runs over this workspace will see (or, with
    scope="global", runs over every workspace). Use it for what took effort to learn and
    will still hold: the build or test command, a convention, a decision and its reason.
    Writing a key again replaces its note. Notes are capped in size and number; the
    least-recalled notes are evicted first. The user's notes (pinned, or written by the user)
    cannot be changed; where the user has not trusted the folder, global notes cannot be
    written."""

    async def run(self, args: RememberArgs, ctx: ToolContext) -> ToolResult:
        return _noted(
            self.name,
            args.key,
            ctx,
            lambda m: m.remember(args.key, args.value, args.scope, ctx.step),
        )


class Forget(BaseTool, name="forget", args=ForgetArgs, target="key"):
    """Remove a note you wrote earlier with `remember`, when it is wrong or no longer true.
    The user's notes (pinned, or written by the user) cannot be forgotten; where the user has
    not trusted the folder, neither can global notes."""

    async def run(self, args: ForgetArgs, ctx: ToolContext) -> ToolResult:
        return _noted(self.name, args.key, ctx, lambda m: m.forget(args.key, args.scope, ctx.step))


def _noted(
    name: str, key: str, ctx: ToolContext, act: Callable[[RunMemory], MemoryOutcome]
) -> ToolResult:
    """``act`` on the run's memory, its outcome as the result; without memory, a failure."""
    target = _target(key)
    if ctx.memory is None:
        return failure(name, target, _UNAVAILABLE)
    outcome = act(ctx.memory)
    return ToolResult(
        name=name,
        target=target,
        text=f"{header(name, target)}\n{outcome.text}",
        ok=outcome.ok,
        events=outcome.events,
    )


def _target(key: str) -> str:
    """The key as a result's target: one line, and short even when the key is not."""
    flat = inline(key.strip())
    return flat if len(flat) <= MAX_KEY_CHARS else flat[: MAX_KEY_CHARS - 1] + "…"


MEMORY_TOOLS: tuple[type[Tool], ...] = (Remember, Forget)
