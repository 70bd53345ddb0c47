"""What a span may carry of a run's words (§12): the GenAI conventions' message shapes
(``gen_ai.input.messages``, ``gen_ai.output.messages``, ``gen_ai.system_instructions``: JSON
arrays of ``{role, parts: [{type, …}]}``), built only when the user asked for content
(``capture_content``), and every text redacted of the registered keys before it leaves —
content or not, a key is never exported."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from harness.redact import redact
from harness.types import Message, Reply, Request, Role, ToolCall

AttributeValue = str | bool | int | float | list[str]


def clean(attributes: Mapping[str, AttributeValue | None]) -> dict[str, AttributeValue]:
    """``attributes`` without the unknown (None) values, every text redacted."""
    out: dict[str, AttributeValue] = {}
    for name, value in attributes.items():
        if value is None:
            continue
        if isinstance(value, str):
            out[name] = redact(value)
        elif isinstance(value, list):
            out[name] = [redact(v) for v in value]
        else:
            out[name] = value
    return out


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def system_instructions(request: Request) -> str:
    return _json([{"type": "text", "content": request.system}])


def input_messages(request: Request) -> str:
    """The request's messages as sent (the trailer last, in the last user turn)."""
    messages = [_message(m) for m in request.messages]
    if request.trailer:
        messages.append({"role": "user", "parts": [_text(request.trailer)]})
    return _json(messages)


def output_messages(reply: Reply) -> str:
    parts = ([_text(reply.content)] if reply.content else []) + [_call(c) for c in reply.tool_calls]
    return _json([{"role": "assistant", "parts": parts}])


def arguments(call: ToolCall) -> str:
    return _json(dict(call.arguments))


def _message(message: Message) -> dict[str, Any]:
    if message.role is Role.TOOL:
        part = {"type": "tool_call_response", "id": message.tool_call_id, "response": message.text}
        return {"role": "tool", "parts": [part]}
    parts: list[dict[str, Any]] = [_text(p) for p in message.parts]
    parts += [_call(c) for c in message.tool_calls]
    return {"role": message.role.value, "parts": parts}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "content": text}


def _call(call: ToolCall) -> dict[str, Any]:
    return {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}


def goal_messages(goal: str) -> str:
    return _json([{"role": "user", "parts": [_text(goal)]}])


def summary_messages(summary: str | None) -> str:
    return _json([{"role": "assistant", "parts": [_text(summary)] if summary else []}])


__all__ = [
    "AttributeValue",
    "arguments",
    "clean",
    "goal_messages",
    "input_messages",
    "output_messages",
    "summary_messages",
    "system_instructions",
]
