"""The Anthropic Messages wire, with tools, streamed (SSE) or whole.

A ``Request`` becomes (§3 "Wire form", rule 7): ``system`` as one text block; each user part
a text block of its own; an assistant turn as ``text`` + ``tool_use`` blocks; each tool answer
a ``tool_result`` block in the user message that follows; consecutive same-role content merged
into one message (the API requires alternation); the trailer the last text block of the last
user message. ``cache_control`` breakpoints mark the stable prefix (``breakpoints.py``: the
system block, the last block before the trailer when there is one, and between them where the
20-block lookback needs one to reach a prefix an earlier request marked), so every request
reads back what the ones before it stored, after a slide too. An empty text block is never
sent. Usage counts the whole prompt (input + cache
reads + cache writes).
"""

from __future__ import annotations

import json
from typing import Any

from httpx_sse import ServerSentEvent

from harness.errors import FailureKind
from harness.provider.breakpoints import MarkedPrefixes, place_breakpoints, prefix_keys
from harness.provider.failure import AttemptFailed, malformed, reported_error
from harness.provider.http import HttpProvider
from harness.provider.wire import ReplyBuilder, as_int
from harness.types import Message, Request, Role, Usage

EPHEMERAL = {"type": "ephemeral"}
Block = dict[str, Any]

ANTHROPIC_VERSION = "2023-06-01"


class AnthropicProvider(HttpProvider):
    """Messages at ``{base_url}/v1/messages``."""

    path = "/v1/messages"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.marked = MarkedPrefixes()  # the prefixes this provider's requests marked

    def headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    def body(self, request: Request, stream: bool) -> dict[str, Any]:
        return request_body(
            request,
            model=self.model,
            max_tokens=self.config.max_output_tokens,
            stream=stream,
            marked=self.marked,
        )

    def parse(self, data: Any, builder: ReplyBuilder) -> None:
        if not isinstance(data, dict):
            raise malformed(f"expected a JSON object, got {type(data).__name__}")
        _raise_error(data)
        content = data.get("content")
        if not isinstance(content, list):
            raise malformed("the answer has no content blocks")
        builder.model = str(data.get("model") or "")
        builder.finish_reason = data.get("stop_reason")
        builder.usage = usage_from(data.get("usage"))
        for index, block in enumerate(content):
            kind = block.get("type")
            if kind == "text" and block.get("text"):
                builder.content.append(str(block["text"]))
            elif kind == "tool_use":
                builder.whole_call(index, block.get("id"), block.get("name"), block.get("input"))

    def decoder(self) -> AnthropicStream:
        return AnthropicStream()


class AnthropicStream:
    """Assembles Messages stream events: text deltas, ``input_json_delta`` pieces of each
    ``tool_use`` block, the stop reason and usage from ``message_start``/``message_delta``."""

    def __init__(self) -> None:
        self.builder = ReplyBuilder()
        self.done = False
        self._started = False
        self._usage: dict[str, Any] = {}

    def feed(self, event: ServerSentEvent) -> None:
        if not event.data:
            return
        data = json.loads(event.data)
        if not isinstance(data, dict):
            raise malformed("a stream event is not a JSON object")
        kind = data.get("type") or event.event
        if kind == "error":
            _raise_error(data)
        elif kind == "message_start":
            message = data.get("message") or {}
            self._started = True
            self.builder.model = str(message.get("model") or "")
            self._merge_usage(message.get("usage"))
        elif kind == "content_block_start":
            self._block_start(_index(data), data.get("content_block") or {})
        elif kind == "content_block_delta":
            self._block_delta(_index(data), data.get("delta") or {})
        elif kind == "message_delta":
            stop = (data.get("delta") or {}).get("stop_reason")
            if stop:
                self.builder.finish_reason = str(stop)
            self._merge_usage(data.get("usage"))
        elif kind == "message_stop":
            self.done = True

    def _block_start(self, index: int, block: dict[str, Any]) -> None:
        if block.get("type") == "tool_use":
            pending = self.builder.call(index)
            pending.id = str(block.get("id") or "")
            pending.name = str(block.get("name") or "")
            if block.get("input"):  # normally {} with the input streamed as JSON pieces
                pending.value = block["input"]
        elif block.get("type") == "text" and block.get("text"):
            self.builder.add_text(str(block["text"]))

    def _block_delta(self, index: int, delta: dict[str, Any]) -> None:
        kind = delta.get("type")
        if kind == "text_delta" and delta.get("text"):
            self.builder.add_text(str(delta["text"]))
        elif kind == "input_json_delta" and index in self.builder.calls:
            pending = self.builder.calls[index]
            pending.value = None
            pending.pieces.append(str(delta.get("partial_json") or ""))

    def _merge_usage(self, raw: object) -> None:
        if isinstance(raw, dict):
            self._usage.update({k: v for k, v in raw.items() if v is not None})
            self.builder.usage = usage_from(self._usage)

    def finish(self) -> None:
        if not self._started:
            raise malformed("the stream had no message_start")
        if not self.done:
            raise AttemptFailed(
                FailureKind.CONNECTION,
                "the stream ended before the reply was complete (no message_stop)",
                status=200,
            )


def request_body(
    request: Request,
    *,
    model: str,
    max_tokens: int,
    stream: bool,
    marked: MarkedPrefixes | None = None,
) -> dict[str, Any]:
    """The Messages request body for ``request``, with its cache breakpoints placed against
    the prefixes earlier requests marked (``marked``, which learns this request's)."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": wire_messages(request),
    }
    if request.system:  # an empty text block is rejected
        body["system"] = [{"type": "text", "text": request.system}]
    if request.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
            for t in request.tools
        ]
    body["stream"] = stream
    _mark(body, has_trailer=bool(request.trailer), marked=marked)
    return body


def _mark(body: dict[str, Any], *, has_trailer: bool, marked: MarkedPrefixes | None) -> None:
    blocks: list[tuple[str, Block]] = [("tool", t) for t in body.get("tools", ())]
    blocks += [("system", b) for b in body.get("system", ())]
    system_end = len(blocks) - 1 if body.get("system") else -1
    for message in body["messages"]:
        blocks += [(message["role"], b) for b in message["content"]]
    keys = prefix_keys(blocks)
    stable_end = len(blocks) - 2 if has_trailer and body["messages"] else -1
    places = place_breakpoints(
        keys,
        system_end=system_end,
        stable_end=stable_end,
        marked=marked if marked is not None else (),
    )
    for at in places:
        blocks[at][1]["cache_control"] = EPHEMERAL
    if marked is not None:
        marked.add([keys[at] for at in places])


def wire_messages(request: Request) -> list[dict[str, Any]]:
    """The messages, alternating roles, the trailer the last text block (the breakpoints
    are placed by ``request_body``)."""
    out: list[dict[str, Any]] = []
    for message in request.messages:
        role, blocks = _blocks(message)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    if request.trailer:
        trailer = {"type": "text", "text": request.trailer}
        if out and out[-1]["role"] == "user":
            out[-1]["content"].append(trailer)
        else:
            out.append({"role": "user", "content": [trailer]})
    return out


def _blocks(message: Message) -> tuple[str, list[Block]]:
    """A message's wire role and content blocks (tool answers travel in user messages)."""
    texts: list[Block] = [{"type": "text", "text": p} for p in message.parts if p]
    if message.role is Role.TOOL:
        result: Block = {"type": "tool_result", "tool_use_id": message.tool_call_id or ""}
        if message.text:
            result["content"] = message.text
        return "user", [result]
    if message.role is Role.ASSISTANT:
        uses: list[Block] = [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)}
            for c in message.tool_calls
        ]
        return "assistant", texts + uses
    return "user", texts


def usage_from(raw: object) -> Usage | None:
    """Messages ``usage``: prompt tokens = input + cache reads + cache writes."""
    if not isinstance(raw, dict):
        return None
    fresh = as_int(raw.get("input_tokens"))
    output = as_int(raw.get("output_tokens"))
    if fresh is None and output is None:
        return None
    read = as_int(raw.get("cache_read_input_tokens"))
    write = as_int(raw.get("cache_creation_input_tokens"))
    prompt = (fresh or 0) + (read or 0) + (write or 0)
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=output,
        total_tokens=prompt + (output or 0),
        cache_read_tokens=read,
        cache_write_tokens=write,
    )


def _index(data: dict[str, Any]) -> int:
    # Not int(): its error quotes the server's text, cut at 200 characters before we see it.
    index = as_int(data.get("index"))
    if index is None:
        raise malformed("a content block event has no integer index")
    return index


def _raise_error(data: dict[str, Any]) -> None:
    # An error answer with status 200, or an ``event: error`` mid-stream (e.g. overloaded).
    if data.get("type") == "error" or "error" in data:
        raise reported_error(data)


__all__ = [
    "ANTHROPIC_VERSION",
    "AnthropicProvider",
    "AnthropicStream",
    "request_body",
    "usage_from",
    "wire_messages",
]
