"""What a semantic answer reads (§14: a semantic answer is a read of every file it lists):
the queried file, through containment and the ``read`` policy, as text; and every other
listed file the same way — a file the policy refuses is left out and counted, one outside
the workspace refused and counted."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field

from harness.errors import ContainmentError
from harness.tools.access import authorize, open_error
from harness.tools.base import ToolContext, failure
from harness.types import Act, PolicyEvent, ToolResult

MAX_SEMANTIC_FILE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Readable:
    """The queried file: its real relative path and its text."""

    rel: str
    text: str
    policy: tuple[PolicyEvent, ...] = ()


@dataclass
class Listed:
    """The texts of the files an answer lists that the policy lets the model read."""

    texts: dict[str, str] = field(default_factory=dict)
    refused: int = 0
    outside: int = 0
    policy: tuple[PolicyEvent, ...] = ()


def _text(ctx: ToolContext, rel: str) -> str:
    data = ctx.workspace.read_bytes(rel, MAX_SEMANTIC_FILE_BYTES + 1)
    if len(data) > MAX_SEMANTIC_FILE_BYTES:
        raise ValueError(f"`{rel}` is larger than {MAX_SEMANTIC_FILE_BYTES:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"`{rel}` is not UTF-8 text") from None


async def read_target(kind: str, raw: str, target: str, ctx: ToolContext) -> Readable | ToolResult:
    access = await authorize(kind, raw, Act.READ, ctx)
    if isinstance(access, ToolResult):
        return failure(kind, target, access.text.split("error: ", 1)[-1], policy=access.policy)
    try:
        text = await asyncio.to_thread(_text, ctx, access.rel)
    except ValueError as exc:
        return failure(kind, target, str(exc), policy=access.policy)
    except (ContainmentError, OSError) as exc:
        return failure(kind, target, open_error(kind, raw, exc), policy=access.policy)
    return Readable(access.rel, text, access.policy)


async def read_listed(ctx: ToolContext, paths: Iterable[str], first: Readable) -> Listed:
    listed = Listed({first.rel: first.text}, policy=first.policy)
    events = list(first.policy)
    for path in dict.fromkeys(paths):
        if path in listed.texts:
            continue
        access = await authorize("references", path, Act.READ, ctx)
        if isinstance(access, ToolResult):
            events += access.policy
            outside = any(e.layer == "containment" for e in access.policy)
            listed.outside += 1 if outside else 0
            listed.refused += 0 if outside else 1
            continue
        try:
            listed.texts[path] = await asyncio.to_thread(_text, ctx, access.rel)
        except (ValueError, ContainmentError, OSError):
            listed.refused += 1
    listed.policy = tuple(events)
    return listed


__all__ = ["Listed", "Readable", "read_listed", "read_target"]
