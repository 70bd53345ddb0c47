"""§11 run events as ACP ``session/update`` notifications: the model's words
(``agent_message_chunk``), the user's turns when a session is replayed
(``user_message_chunk``), each tool call (``tool_call`` with its kind, title and locations)
and its end (``tool_call_update``: ``completed`` or ``failed``, with why, and for a write the
``diff`` of the file before and after)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from acp import (
    resource_link_block,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_tool_call,
    update_user_message,
    update_user_message_text,
)
from acp.helpers import SessionUpdate, ToolCallContentVariant
from acp.schema import Cost, ToolCallLocation, ToolKind, UsageUpdate

from harness.types import ApprovalRequest, ToolCall

# The ACP kind of each of the harness's tools (§6.1).
KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "grep": "search",
    "find": "search",
    "list_dir": "search",
    "write_file": "edit",
    "edit_file": "edit",
    "exec": "execute",
    "remember": "think",
    "forget": "think",
    "symbols": "read",
    "references": "search",
    "diagnostics": "read",
    "rename_symbol": "edit",
}
FILE_TOOLS = frozenset({"read_file", "write_file", "edit_file", "list_dir"})
WRITE_TOOLS = frozenset({"write_file", "edit_file"})

# (before, after) of the file a write changed, from the store: (run id, path) -> texts
Edits = Callable[[int, str], tuple[str | None, str] | None]


def call_id(event: dict[str, Any]) -> str:
    """The ACP tool call id: the provider's call id within its run (ids repeat across runs)."""
    return f"{event['runId']}-{event['callId']}"


def title_of(event: dict[str, Any]) -> str:
    from harness.run.toolbox import label  # the tools load with the first call, not at start

    return label(ToolCall(str(event["callId"]), event["name"], event.get("arguments", {})))


def locations(root: Path, event: dict[str, Any]) -> list[ToolCallLocation] | None:
    target = event.get("target") or ""
    if event["name"] not in FILE_TOOLS or not target:
        return None
    return [ToolCallLocation(path=str(root / target))]


def tool_started(root: Path, event: dict[str, Any]) -> SessionUpdate:
    return start_tool_call(
        call_id(event),
        title_of(event),
        kind=KINDS.get(event["name"], "other"),
        status="in_progress",
        locations=locations(root, event),
        raw_input=event.get("arguments"),
    )


def tool_ended(
    root: Path, event: dict[str, Any], started: dict[str, Any] | None, edits: Edits
) -> SessionUpdate:
    ok = event["status"] == "ok"
    content: list[ToolCallContentVariant] = []
    said = event.get("reason") or event.get("why")
    words = said or ("" if event.get("output") else event.get("summary")) or ""
    if words:  # the status is the call's own; the words say why, or what it gave
        content.append(tool_content(text_block(fenced(words))))
    if event.get("output"):  # a command's output, head and tail (redacted when sent)
        content.append(tool_content(text_block(fenced(event["output"]))))
    written = event.get("wrote") or []
    if not written and ok and started is not None and started["name"] in WRITE_TOOLS:
        written = [started.get("target") or ""]
    for path in written if ok else ():  # each file's diff: a rename's too
        change = edits(event["runId"], path)
        if change is not None:
            content.append(tool_diff_content(str(root / path), change[1], change[0]))
    status: Literal["completed", "failed"] = "completed" if ok else "failed"
    found = [
        ToolCallLocation(path=str(root / row["path"]), line=row["line"])
        for row in event.get("locations") or ()
    ]
    return update_tool_call(
        call_id(event), status=status, content=content or None, locations=found or None
    )


def permission_content(
    root: Path, started: dict[str, Any] | None, asked: dict[str, Any], request: ApprovalRequest
) -> list[ToolCallContentVariant]:
    """What a permission request shows: a write's new text as a diff against the disk, an
    exec's whole command, and the unified diff the policy made (§6.3)."""
    out: list[ToolCallContentVariant] = []
    if started is not None and started["name"] in WRITE_TOOLS:
        proposed = _proposed(root, started)
        if proposed is not None:
            out.append(tool_diff_content(str(root / started["target"]), proposed[1], proposed[0]))
    if "command" in asked:  # the whole command, escaped as every approver shows it
        words = f"Run this command?\n\n{fenced(asked['command'])}"
        if request.files_written:
            from harness.policy.approval import written_names

            words += f"\n\nThis run has written: {written_names(request.files_written)}"
        out.append(tool_content(text_block(words)))
    if asked.get("diff"):
        out.append(tool_content(text_block(fenced(asked["diff"], "diff"))))
    return out


def usage(event: dict[str, Any], earlier_cost: float) -> UsageUpdate:
    """A ``budget`` event as ACP's ``usage_update``: the last request's tokens against its
    ceiling, the session's dollars when the model's price is known (§11), and the run's
    budget and steps under ``_meta.harness``."""
    used = event.get("reportedPromptTokens") or event.get("requestTokens") or 0
    cost = event.get("costUsd")
    keep = ("step", "maxSteps", "spentTokens", "tokenBudget", "cachedPromptTokens", "costUsd")
    return UsageUpdate(
        session_update="usage_update",
        used=max(0, int(used)),
        size=max(0, int(event.get("contextCeiling") or 0)),
        cost=Cost(amount=earlier_cost + cost, currency="USD") if cost is not None else None,
        field_meta={"harness": {k: event[k] for k in keep if event.get(k) is not None}},
    )


def fenced(text: str, info: str = "") -> str:
    """``text`` as a Markdown code block no backtick run inside it can close (§6.3: what
    came from the model is shown as plain text)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def _proposed(root: Path, started: dict[str, Any]) -> tuple[str | None, str] | None:
    args = started.get("arguments") or {}
    path = root / (started.get("target") or "")
    try:
        before: str | None = path.read_text() if path.is_file() else None
    except (OSError, UnicodeDecodeError):
        before = None
    if started["name"] == "write_file" and isinstance(args.get("content"), str):
        return before, args["content"]
    old, new = args.get("old"), args.get("new")
    if (
        before is not None
        and isinstance(old, str)
        and isinstance(new, str)
        and before.count(old) == 1
    ):
        return before, before.replace(old, new)
    return None


def _links(root: Path, event: dict[str, Any]) -> list[SessionUpdate]:
    """The files the user attached to a turn, as the resource links the client sent."""
    out: list[SessionUpdate] = []
    for item in event.get("context") or ():
        path = str(item.get("path") or "")
        if not path:
            continue
        uri = (root / path).as_uri()
        if item.get("offset"):
            first = int(item["offset"])
            uri += f"#L{first}-{first + max(1, int(item.get('limit') or 1)) - 1}"
        out.append(update_user_message(resource_link_block(path, uri)))
    return out


def translate(
    root: Path,
    event: dict[str, Any],
    calls: dict[str, dict[str, Any]],
    edits: Edits,
    *,
    replay: bool,
) -> list[SessionUpdate]:
    """The updates one event makes; ``calls`` (by ACP id) remembers the calls started."""
    kind = event["kind"]
    if kind == "user" and replay:
        return [update_user_message_text(event["text"]), *_links(root, event)]
    if kind == "text":
        return [update_agent_message_text(event["delta"])]
    if kind == "toolCall":
        calls[call_id(event)] = event
        return [tool_started(root, event)]
    if kind == "toolResult":
        started = calls.pop(call_id(event), None)
        return [tool_ended(root, event, started, edits)]
    if kind == "end":  # a call the run never finished (cancelled at its question) ends too
        why = f"not run: the run ended ({event.get('outcome')})"
        ended: list[SessionUpdate] = [
            update_tool_call(i, status="failed", content=[tool_content(text_block(why))])
            for i in calls
        ]
        calls.clear()
        return ended
    return []


__all__ = ["KINDS", "Edits", "call_id", "permission_content", "title_of", "translate", "usage"]
