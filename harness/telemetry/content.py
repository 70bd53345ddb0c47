"""What a span may carry of a run's words (§12): the GenAI conventions' message shapes
(``gen_ai.input.messages``, ``gen_ai.output.messages``, ``gen_ai.system_instructions``: JSON
arrays of ``{role, parts: [{type, …}]}``), built only when the user asked for content
(``capture_content``), and every text redacted of the registered keys before it leaves —
content or not, a key is never exported — then cut: a content attribute at
``CONTENT_CHARS``, any other (a model name, a status) at ``ATTRIBUTE_CHARS``; a span name's
subject at ``NAME_CHARS`` (issue 30, finding 9)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as ga

from harness.redact import clip
from harness.types import Message, Reply, Request, Role, ToolCall

AttributeValue = str | bool | int | float | list[str]

NAME_CHARS = 64  # a span name's subject (a tool, a model)
ATTRIBUTE_CHARS = 256  # any attribute that is not content
CONTENT_CHARS = 64 * 1024  # prompts, words, arguments, results (capture_content only)
CONTENT_ATTRIBUTES = frozenset(
    {
        ga.GEN_AI_INPUT_MESSAGES,
        ga.GEN_AI_OUTPUT_MESSAGES,
        ga.GEN_AI_SYSTEM_INSTRUCTIONS,
        ga.GEN_AI_TOOL_CALL_ARGUMENTS,
        ga.GEN_AI_TOOL_CALL_RESULT,
        "harness.verify.command",
    }
)


def clean(attributes: Mapping[str, AttributeValue | None]) -> dict[str, AttributeValue]:
    """``attributes`` without the unknown (None) values, every text redacted and cut."""
    out: dict[str, AttributeValue] = {}
    for name, value in attributes.items():
        limit = CONTENT_CHARS if name in CONTENT_ATTRIBUTES else ATTRIBUTE_CHARS
        if value is None:
            continue
        if isinstance(value, str):
            out[name] = clip(value, limit)
        elif isinstance(value, list):
            out[name] = [clip(v, limit) for v in value]
        else:
            out[name] = value
    return out


def subject(name: str) -> str:
    """A name a span is about (a tool, a model), redacted and cut: it is never content."""
    return clip(name, NAME_CHARS)


def span_name(operation: str, name: str) -> str:
    return f"{operation} {subject(name)}"


def status_text(text: str) -> str:
    return clip(text, ATTRIBUTE_CHARS)


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
    "ATTRIBUTE_CHARS",
    "CONTENT_CHARS",
    "NAME_CHARS",
    "AttributeValue",
    "arguments",
    "clean",
    "goal_messages",
    "input_messages",
    "output_messages",
    "span_name",
    "status_text",
    "subject",
    "summary_messages",
    "system_instructions",
]
