"""An MCP server's tools as the model sees them (§15): named ``mcp__SERVER__TOOL``
(characters outside ``[A-Za-z0-9_-]`` become ``_``, at most 64; a collision is refused and
named), sorted, each server's schemas within ``[mcp] schema_chars`` (the tools past it are
not offered, and the frame says which), the ``mcp`` act asked before every call (target
``SERVER/TOOL``, the arguments shown as plain text), and the result joined, named, redacted
— capped where it enters like any observation (§3 rule 4)."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ConfigDict

from harness import redact
from harness.mcp.client import McpFailure
from harness.tools.base import _DECLARED, Declaration, ToolArgs, ToolContext, header
from harness.types import Act, Notice, NoticeKind, ToolResult

if TYPE_CHECKING:
    from harness.mcp.drift import Drift

if TYPE_CHECKING:
    from mcp.types import CallToolResult

MAX_NAME = 64
MAX_RESULT_CHARS = 4_000_000  # what one result may bring in at all; the trace keeps this much
MAX_ARGS_SHOWN = 20_000
_BAD = re.compile(r"[^A-Za-z0-9_-]")
LABEL = "mcp"


def tool_name(server: str, tool: str) -> str:
    """``mcp__SERVER__TOOL``, made of ``[A-Za-z0-9_-]``, at most 64 characters."""
    return f"mcp__{_BAD.sub('_', server)}__{_BAD.sub('_', tool)}"[:MAX_NAME]


class McpArgs(ToolArgs):
    """Any JSON object: the server checks its own schema."""

    model_config = ConfigDict(extra="allow", frozen=True)


@dataclass
class Offered:
    """One server tool offered to the model."""

    server: str
    tool: str
    description: str
    schema: Mapping[str, Any]

    def chars(self) -> int:
        return len(self.description) + len(json.dumps(self.schema, separators=(",", ":")))


class McpTool:
    """A tool of an MCP server, called through its ``Connection`` (``drift.connection``):
    as listed at the run's start, whatever the server lists since (``Drift``)."""

    Args: ClassVar[type[ToolArgs]] = McpArgs

    def __init__(self, name: str, offered: Offered, drift: Drift) -> None:
        self.name = name
        self.description = offered.description
        self.parameters = offered.schema
        self.offered = offered
        self.drift = drift
        self.connection = drift.connection
        # Labelled ``mcp SERVER/TOOL`` (progress lines, panels, stubs); the target is the
        # arguments, so the same call with the same arguments supersedes (§3 rule 2).
        where = f"{offered.server}/{offered.tool}"
        _DECLARED[name] = Declaration(f"{LABEL} {where}", None, "target")

    async def run(self, args: McpArgs, ctx: ToolContext) -> ToolResult:
        arguments = dict(args.model_extra or {})
        where = f"{self.offered.server}/{self.offered.tool}"
        shown = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
        target = shown if arguments else ""
        tool = self.offered.tool
        await self.drift.check()
        if self.drift.withdrawn(tool):
            body = f"error: {where}: {self.drift.withdrawn_text(tool)}"
            return self._told(_result(self.name, target, body, False, ()))
        decision = await ctx.gate.check(Act.MCP, where, diff=_asked(self.offered, shown))
        events = (decision.event,) if decision.event else ()
        if not decision.allowed:
            return _result(self.name, target, f"error: {decision.message}", False, events)
        try:
            answer = await self.connection.call(tool, arguments)
            text, failed = result_text(answer)
        except McpFailure as exc:
            text, failed = f"error: {where}: {exc}", True
        await self.drift.check()  # this call may have changed the server's tools
        if failed and self.drift.withdrawn(tool):
            text += f"\n({self.drift.withdrawn_text(tool)})"
        return self._told(_result(self.name, target, text, not failed, events))

    def _told(self, result: ToolResult) -> ToolResult:
        """``result`` with the user's line when the server's tools changed (once a run)."""
        line = self.drift.notice()
        if not line:
            return result
        notice = Notice(NoticeKind.MCP_TOOLS_CHANGED, "", line)
        return dataclasses.replace(result, notices=(*result.notices, notice))


def _asked(offered: Offered, shown: str) -> str:
    """What the approval shows: the server, the tool and the arguments, as plain text."""
    if len(shown) > MAX_ARGS_SHOWN:
        hidden = len(shown) - MAX_ARGS_SHOWN
        shown = f"{shown[:MAX_ARGS_SHOWN]} … ({hidden:,} more characters hidden)"
    return f"MCP server: {offered.server}\ntool: {offered.tool}\narguments: {shown}"


def _result(name: str, target: str, body: str, ok: bool, events: tuple[Any, ...]) -> ToolResult:
    text = redact.redact(f"{header(name, target)}\n{body}")
    return ToolResult(name=name, target=target, text=text, ok=ok, policy=events)


def result_text(answer: CallToolResult) -> tuple[str, bool]:
    """The text content joined; images, audio and resources named, not inlined; at most
    ``MAX_RESULT_CHARS`` (beyond that, cut with a marker). ``True``: ``isError``."""
    parts = [_part(block) for block in answer.content]
    if not parts and answer.structured_content is not None:
        parts.append(json.dumps(answer.structured_content, ensure_ascii=False))
    text = "\n".join(parts) or "(no content)"
    if len(text) > MAX_RESULT_CHARS:
        total = len(text)
        text = (
            f"{text[:MAX_RESULT_CHARS]}\n…[the server returned {total:,} chars; the harness "
            f"keeps the first {MAX_RESULT_CHARS:,}]"
        )
    if answer.is_error:
        text = f"error: the tool reported an error:\n{text}"
    return text, bool(answer.is_error)


def _part(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        size = len(getattr(block, "data", "") or "") * 3 // 4
        return f"[{kind} {getattr(block, 'mime_type', '?')}, {size:,} bytes: not shown]"
    if kind == "resource":
        res = block.resource
        body = getattr(res, "text", None)
        if body is not None:
            return f"[resource {res.uri}]\n{body}"
        return f"[resource {res.uri} ({getattr(res, 'mime_type', None) or 'binary'}): not shown]"
    if kind == "resource_link":
        return f"[resource link {block.uri} ({block.name})]"
    return f"[{kind or 'unknown'} content: not shown]"


@dataclass
class Chosen:
    """A server's tools as offered, and what was left out (and why)."""

    tools: list[tuple[str, Offered]]
    left_out: list[str]
    refused: list[str]
    schema_chars: int


def choose(
    server: str,
    listed: Iterable[Offered],
    allow: Sequence[str] | None,
    budget: int,
    taken: Mapping[str, str],
) -> Chosen:
    """The tools of ``server`` to offer: in the allow-list, sorted by name, each name not
    ``taken`` by another server, the schemas together within ``budget`` characters."""
    chosen = Chosen([], [], [], 0)
    for offered in sorted(listed, key=lambda o: tool_name(server, o.tool)):
        if allow is not None and offered.tool not in allow:
            continue
        name = tool_name(server, offered.tool)
        if name in taken or any(n == name for n, _ in chosen.tools):
            owner = taken.get(name, f"{server}/another tool")
            chosen.refused.append(f"{offered.tool} (its name {name} is {owner}'s)")
            continue
        size = offered.chars()
        if chosen.schema_chars + size > budget:
            chosen.left_out.append(offered.tool)
            continue
        chosen.schema_chars += size
        chosen.tools.append((name, offered))
    return chosen


def offered_of(server: str, tool: Any) -> Offered | None:
    """An SDK ``Tool`` as offered; None when its schema is no JSON object schema."""
    schema = getattr(tool, "input_schema", None)
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return None
    try:
        json.dumps(schema)
    except (TypeError, ValueError):
        return None
    return Offered(server, str(tool.name), str(tool.description or ""), dict(schema))


__all__ = ["MAX_NAME", "Chosen", "McpTool", "Offered", "choose", "offered_of", "tool_name"]
