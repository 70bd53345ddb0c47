"""The OpenAI Chat Completions wire, with tools, streamed (SSE) or whole. Also serves
OpenRouter, Ollama, vLLM, llama.cpp and LM Studio, which speak the same wire.

A ``Request`` becomes ``[system, …messages]`` (§3 "Wire form"): a user message's parts joined
by ``PART_SEPARATOR``; an assistant message with the model's words (``null`` when it said
nothing but called tools) and its ``tool_calls``; a tool message answering ``tool_call_id``;
the trailer as the last text of the last user turn — joined to a final user message, or a
user message of its own after tool messages. The flat form is exactly ``[system, user]``.
These servers cache a stable prefix by themselves: nothing is marked.
"""

from __future__ import annotations

import json
from typing import Any

from httpx_sse import ServerSentEvent

from harness.errors import FailureKind
from harness.provider.failure import AttemptFailed, malformed, reported_error
from harness.provider.http import HttpProvider
from harness.provider.wire import ReplyBuilder, as_int
from harness.types import PART_SEPARATOR, Message, Request, Role, Usage, arguments_text

# OpenRouter's app attribution headers (https://openrouter.ai/docs/app-attribution).
OPENROUTER_HEADERS = {
    "HTTP-Referer": "https://github.com/harness-lsp/harness-lsp",
    "X-Title": "harness-lsp",
    "X-OpenRouter-Title": "harness-lsp",
}


class OpenAIProvider(HttpProvider):
    """Chat Completions at ``{base_url}/chat/completions``."""

    path = "/chat/completions"

    def headers(self, api_key: str | None) -> dict[str, str]:
        headers: dict[str, str] = {}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        if self.config.name == "openrouter":
            headers.update(OPENROUTER_HEADERS)
        return headers

    def body(self, request: Request, stream: bool) -> dict[str, Any]:
        return request_body(request, model=self.model, stream=stream)

    def parse(self, data: Any, builder: ReplyBuilder) -> None:
        if not isinstance(data, dict):
            raise malformed(f"expected a JSON object, got {type(data).__name__}")
        _raise_error_field(data)
        builder.model = str(data.get("model") or "")
        builder.usage = usage_from(data.get("usage"))
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise malformed("the answer has no choices")
        choice = choices[0]
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise malformed("the answer's first choice has no message")
        builder.finish_reason = choice.get("finish_reason")
        if message.get("content"):
            builder.content.append(str(message["content"]))
        for n, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function") or {}
            # Some local servers send the arguments as an object.
            builder.whole_call(n, call.get("id"), function.get("name"), function.get("arguments"))

    def decoder(self) -> OpenAIStream:
        return OpenAIStream()


class OpenAIStream:
    """Assembles ``chat.completion.chunk`` events: content deltas, tool-call deltas joined by
    ``index``, the finish reason, and usage from the final chunk (``include_usage``)."""

    def __init__(self) -> None:
        self.builder = ReplyBuilder()
        self.done = False
        self._saw_choice = False

    def feed(self, event: ServerSentEvent) -> None:
        data = event.data
        if not data:
            return
        if data.strip() == "[DONE]":
            self.done = True
            return
        chunk = json.loads(data)
        if not isinstance(chunk, dict):
            raise malformed("a stream event is not a JSON object")
        _raise_error_field(chunk)
        if chunk.get("model") and not self.builder.model:
            self.builder.model = str(chunk["model"])
        if chunk.get("usage"):
            self.builder.usage = usage_from(chunk["usage"])
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) == 0:
                self._saw_choice = True
                self._delta(choice.get("delta") or {})
                if choice.get("finish_reason"):
                    self.builder.finish_reason = str(choice["finish_reason"])

    def _delta(self, delta: dict[str, Any]) -> None:
        if delta.get("content"):
            self.builder.add_text(str(delta["content"]))
        for call in delta.get("tool_calls") or []:
            pending = self.builder.call(self._index(call))
            if call.get("id"):
                pending.id = str(call["id"])
            function = call.get("function") or {}
            if function.get("name") and not pending.name:
                pending.name = str(function["name"])
            arguments = function.get("arguments")
            if isinstance(arguments, dict):
                pending.value = arguments
            elif arguments:
                pending.pieces.append(str(arguments))

    def _index(self, call: dict[str, Any]) -> int:
        index = call.get("index")
        if isinstance(index, int):
            return index
        # Servers that omit ``index`` send each call whole, or continue the last one.
        calls = self.builder.calls
        if call.get("id"):
            for n, pending in calls.items():
                if pending.id == call["id"]:
                    return n
            return len(calls)
        return max(calls) if calls else 0

    def finish(self) -> None:
        if not self.done and self.builder.finish_reason is None:
            raise AttemptFailed(
                FailureKind.CONNECTION,
                "the stream ended before the reply was complete (no finish_reason, no [DONE])",
                status=200,
            )
        if not self._saw_choice:
            raise malformed("the stream carried no choices")


def request_body(request: Request, *, model: str, stream: bool) -> dict[str, Any]:
    """The Chat Completions request body for ``request``."""
    body: dict[str, Any] = {"model": model, "messages": wire_messages(request)}
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.parameters),
                },
            }
            for t in request.tools
        ]
    body["stream"] = stream
    if stream:
        body["stream_options"] = {"include_usage": True}
    return body


def wire_messages(request: Request) -> list[dict[str, Any]]:
    """The Chat Completions messages: system, then each message, the trailer last."""
    out: list[dict[str, Any]] = [{"role": "system", "content": request.system}]
    out += [_message(m) for m in request.messages]
    if request.trailer:
        last = out[-1]
        if last["role"] == "user" and len(out) > 1:
            joined = f"{last['content']}{PART_SEPARATOR}" if last["content"] else ""
            last["content"] = joined + request.trailer
        else:
            out.append({"role": "user", "content": request.trailer})
    return out


def _message(m: Message) -> dict[str, Any]:
    if m.role is Role.TOOL:
        return {"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.text}
    if m.role is Role.ASSISTANT and m.tool_calls:
        calls = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": arguments_text(c)},
            }
            for c in m.tool_calls
        ]
        return {"role": "assistant", "content": m.text or None, "tool_calls": calls}
    # An assistant turn with neither words nor calls still needs a content string.
    return {"role": m.role.value, "content": m.text}


def usage_from(raw: object) -> Usage | None:
    """``usage`` of a Chat Completions answer, or None when absent."""
    if not isinstance(raw, dict):
        return None
    prompt = as_int(raw.get("prompt_tokens"))
    completion = as_int(raw.get("completion_tokens"))
    total = as_int(raw.get("total_tokens"))
    if prompt is None and completion is None and total is None:
        return None
    if total is None:
        total = (prompt or 0) + (completion or 0)
    details = raw.get("prompt_tokens_details")
    cached = as_int(details.get("cached_tokens")) if isinstance(details, dict) else None
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        cache_read_tokens=cached,
    )


def _raise_error_field(data: dict[str, Any]) -> None:
    # OpenRouter and some local servers report failures inside a 200 answer or stream.
    if data.get("error"):
        raise reported_error({"error": data["error"]})


__all__ = [
    "OPENROUTER_HEADERS",
    "OpenAIProvider",
    "OpenAIStream",
    "request_body",
    "usage_from",
    "wire_messages",
]
