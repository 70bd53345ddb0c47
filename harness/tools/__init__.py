"""The tool registry: the tools of §6.1 plus the memory tools, their schemas as the model
sees them, and ``dispatch``, which turns any call into a result and never raises.

``dispatch`` reports an unknown tool, arguments that were not a JSON object, arguments that
fail validation, and any unexpected exception inside a tool as an error observation; only
``CancelledError`` passes through.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from harness.tools.base import (
    Declaration,
    Tool,
    ToolContext,
    declaration,
    failure,
    header,
    label_of,
)
from harness.tools.exec import Exec
from harness.tools.files import EditFile, ReadFile, WriteFile
from harness.tools.search import Find, Grep, ListDir
from harness.tools.semantic import SEMANTIC_TOOLS
from harness.types import ToolCall, ToolResult, ToolSchema

log = logging.getLogger(__name__)

_CORE_TOOLS: tuple[type[Tool], ...] = (ReadFile, Grep, Find, ListDir, WriteFile, EditFile, Exec)


def all_tools(*, semantic: bool = False) -> dict[str, Tool]:
    """Fresh instances of every tool, by name: the seven of §6.1, then the memory tools,
    then (for a run with a semantic back end) the four semantic tools of §14."""
    from harness.tools.memory import MEMORY_TOOLS

    extra = SEMANTIC_TOOLS if semantic else ()
    return {cls.name: cls() for cls in (*_CORE_TOOLS, *MEMORY_TOOLS, *extra)}


def tool_schemas(tools: Mapping[str, Tool]) -> tuple[ToolSchema, ...]:
    """What the model is told about each tool: name, description, JSON schema of the args
    (a tool with its own ``parameters``, an MCP server's, gives that schema)."""
    return tuple(
        ToolSchema(
            name=t.name,
            description=t.description,
            parameters=getattr(t, "parameters", None) or t.Args.model_json_schema(),
        )
        for t in tools.values()
    )


async def dispatch(call: ToolCall, tools: Mapping[str, Tool], ctx: ToolContext) -> ToolResult:
    """Run one call. Every failure is a ``ToolResult(ok=False)`` telling the model what went
    wrong and what to do; only cancellation propagates."""
    hint = _target_hint(call.arguments)
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(sorted(tools))
        return failure(call.name, hint, f"unknown tool `{call.name}`; the tools are: {known}")
    if call.arguments_error is not None:
        return failure(
            call.name,
            hint,
            f"the arguments were not a JSON object ({call.arguments_error}); send one JSON "
            "object matching the tool's parameters",
        )
    try:
        args = tool.Args.model_validate(dict(call.arguments))
    except ValidationError as exc:
        return failure(call.name, hint, f"bad arguments: {describe_validation(exc)}")
    try:
        return await tool.run(args, ctx)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.exception("tool %s failed on %r", call.name, dict(call.arguments))
        return failure(
            call.name,
            hint,
            f"internal error in {call.name} ({type(exc).__name__}: {exc}); this is a fault in "
            "the harness, not in your arguments — try another way to get what you need",
        )


def describe_validation(exc: ValidationError) -> str:
    """``offset: must be >= 1; path: missing``, short enough for a model to act on."""
    problems = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        kind = err["type"]
        if kind == "missing":
            problems.append(f"`{field}` is required")
        elif kind == "extra_forbidden":
            problems.append(f"`{field}` is not a parameter of this tool")
        else:
            problems.append(f"`{field}`: {err['msg']} (got {_short(err.get('input'))})")
    return "; ".join(problems)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _target_hint(arguments: Mapping[str, Any]) -> str:
    """A subject for the header of an error, from whatever the model sent."""
    for key in ("path", "pattern", "name_glob", "key"):
        value = arguments.get(key) if isinstance(arguments, Mapping) else None
        if isinstance(value, str) and value and len(value) <= 200:
            return value
    argv = arguments.get("argv") if isinstance(arguments, Mapping) else None
    if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv):
        return " ".join(argv)[:200]
    return ""


__all__ = [
    "Declaration",
    "Tool",
    "all_tools",
    "declaration",
    "describe_validation",
    "dispatch",
    "header",
    "label_of",
    "tool_schemas",
]
