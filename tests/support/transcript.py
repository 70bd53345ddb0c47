"""Reading what the harness sent a fake model: every text of a request body, in order, on
either wire and in either form (transcript or flat), and the OpenAI messages in the shape
the trace stores (``Request.messages_json``), so a test can compare the two exactly."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any


def request_text(body: Mapping[str, Any]) -> str:
    """Every text of a request body (system, messages, tool calls' arguments), joined: what
    a test searches for what the model was told."""
    parts: list[str] = []
    system = body.get("system")
    if isinstance(system, list):
        parts += [b.get("text", "") for b in system]
    for message in body.get("messages") or []:
        parts += _texts(message)
    return "\n\n".join(p for p in parts if p)


def _texts(message: Mapping[str, Any]) -> list[str]:
    content = message.get("content")
    out: list[str] = []
    if isinstance(content, str):
        out.append(content)
    elif isinstance(content, list):  # Anthropic blocks
        for block in content:
            if block.get("type") == "text":
                out.append(block["text"])
            elif block.get("type") == "tool_result":
                out.append(str(block.get("content", "")))
            elif block.get("type") == "tool_use":
                out.append(json.dumps(block.get("input", {}), ensure_ascii=False))
    for call in message.get("tool_calls") or []:  # OpenAI
        out.append(call["function"]["arguments"])
    return out


def as_trace(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI Chat Completions messages as the trace keeps them (``messages_json``)."""
    out: list[dict[str, Any]] = []
    for m in messages:
        item: dict[str, Any] = {"role": m["role"], "content": m.get("content") or ""}
        if m.get("tool_calls"):
            item["toolCalls"] = [
                {
                    "id": c["id"],
                    "name": c["function"]["name"],
                    "arguments": json.loads(c["function"]["arguments"]),
                }
                for c in m["tool_calls"]
            ]
        if "tool_call_id" in m:
            item["toolCallId"] = m["tool_call_id"]
        out.append(item)
    return out
