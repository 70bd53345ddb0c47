"""The texts of a request body as the fake model server received it (either wire), in wire
order, joined into one string: what a provider's prompt cache compares. The previous
request's text less its trailer must start the follow-up's (§11)."""

from __future__ import annotations

import json
from typing import Any

SEP = "\x00"


def body_text(body: dict[str, Any]) -> str:
    """System, then each message's texts and tool-call arguments, in order."""
    texts: list[str] = []
    for block in body.get("system") or []:  # Anthropic: a list of text blocks
        texts.append(block["text"])
    for message in body["messages"]:
        texts += _texts(message)
    return SEP.join(texts)


def without_trailer(text: str) -> str:
    """``text`` up to its trailer (the last "Step N of M · …"), without the separator."""
    return text[: text.rindex("Step ")].rstrip("\n" + SEP)


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    out: list[str] = []
    if isinstance(content, str):
        out.append(content)
    for block in content if isinstance(content, list) else []:
        if block.get("type") == "text":
            out.append(block["text"])
        elif block.get("type") == "tool_use":
            out.append(json.dumps(block["input"], ensure_ascii=False))
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            out += [inner] if isinstance(inner, str) else [b["text"] for b in inner or []]
    for call in message.get("tool_calls") or []:
        out.append(call["function"]["arguments"])
    return out
