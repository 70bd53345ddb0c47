"""Stream assembly as properties: tool-call arguments split anywhere, calls interleaved, come
back whole; hostile event streams, replayed by the fake server through a real provider, end
only as a reply or a classified failure whose kind matches what happened."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from httpx_sse import ServerSentEvent
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import FailureKind, ProviderError
from harness.provider import RetryPolicy, make_provider
from harness.provider.anthropic import AnthropicStream
from harness.provider.openai import OpenAIStream
from harness.provider.wire import parse_arguments
from harness.types import Attempt, Reply, Request
from tests.support.fake_llm import FakeLLM

REQUEST = Request.flat("s", ("u",))

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20))
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
arguments = st.dictionaries(st.text(min_size=1, max_size=10), json_value, max_size=5)
calls = st.lists(
    st.tuples(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), arguments), min_size=1, max_size=3
)


def _split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _interleave(streams: list[list[Any]], interleave: bool) -> list[Any]:
    if not interleave:
        return [item for s in streams for item in s]
    longest = max(len(s) for s in streams)
    return [s[i] for i in range(longest) for s in streams if i < len(s)]


def _openai_events(
    plan: list[tuple[str, dict[str, Any]]], size: int, interleave: bool
) -> list[ServerSentEvent]:
    streams = []
    for i, (name, args) in enumerate(plan):
        deltas: list[dict[str, Any]] = [
            {"index": i, "id": f"call_{i}", "type": "function", "function": {"name": name}}
        ]
        deltas += [
            {"index": i, "function": {"arguments": piece}}
            for piece in _split(json.dumps(args), size)
        ]
        streams.append(deltas)
    events = [
        ServerSentEvent(data=json.dumps({"choices": [{"index": 0, "delta": {"tool_calls": [d]}}]}))
        for d in _interleave(streams, interleave)
    ]
    final = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    return [*events, ServerSentEvent(data=json.dumps(final)), ServerSentEvent(data="[DONE]")]


def _anthropic_events(plan: list[tuple[str, dict[str, Any]]], size: int) -> list[ServerSentEvent]:
    def event(kind: str, **data: Any) -> ServerSentEvent:
        return ServerSentEvent(event=kind, data=json.dumps({"type": kind, **data}))

    events = [event("message_start", message={"model": "m", "usage": {"input_tokens": 3}})]
    for i, (name, args) in enumerate(plan):
        block = {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": {}}
        events.append(event("content_block_start", index=i, content_block=block))
        for piece in _split(json.dumps(args), size):
            delta = {"type": "input_json_delta", "partial_json": piece}
            events.append(event("content_block_delta", index=i, delta=delta))
        events.append(event("content_block_stop", index=i))
    events.append(
        event("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 9})
    )
    events.append(event("message_stop"))
    return events


@settings(max_examples=150, deadline=None)
@given(plan=calls, size=st.integers(1, 24), interleave=st.booleans())
def test_openai_deltas_reassemble_whatever_the_split(
    plan: list[tuple[str, dict[str, Any]]], size: int, interleave: bool
) -> None:
    stream = OpenAIStream()
    for event in _openai_events(plan, size, interleave):
        stream.feed(event)
    stream.finish()
    reply = stream.builder.build(REQUEST, "m")
    assert [(c.name, dict(c.arguments), c.arguments_error) for c in reply.tool_calls] == [
        (name, args, None) for name, args in plan
    ]


@settings(max_examples=150, deadline=None)
@given(plan=calls, size=st.integers(1, 24))
def test_anthropic_input_json_reassembles_whatever_the_split(
    plan: list[tuple[str, dict[str, Any]]], size: int
) -> None:
    stream = AnthropicStream()
    for event in _anthropic_events(plan, size):
        stream.feed(event)
    stream.finish()
    reply = stream.builder.build(REQUEST, "m")
    assert [(c.name, dict(c.arguments)) for c in reply.tool_calls] == plan
    assert reply.usage.completion_tokens == 9 and not reply.usage.estimated


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, FakeLLM]]:
    started = {wire: FakeLLM(wire=wire).start() for wire in ("openai", "anthropic")}
    yield started
    for fake in started.values():
        fake.stop()


# How each kind of failure says what happened (HttpProvider and the stream decoders).
REPORTED = {
    FailureKind.SERVER_ERROR,
    FailureKind.RATE_LIMITED,
    FailureKind.AUTH,
    FailureKind.BAD_REQUEST,
    FailureKind.CONTEXT_OVERFLOW,
}
MALFORMED_SAYS = (
    "the answer is malformed (",
    "a stream event is not a JSON object",
    "the stream carried no choices",
    "the stream had no message_start",
    "a content block event has no integer index",
)


def _sse_bytes(events: list[tuple[str, str]]) -> bytes:
    return "".join(f"event: {kind}\ndata: {data}\n\n" for kind, data in events).encode(
        "utf-8", "surrogatepass"
    )


async def _replay(fake: FakeLLM, raw: bytes) -> tuple[Reply | ProviderError, list[Attempt]]:
    fake.add_turns({"sse": raw})
    attempts: list[Attempt] = []
    provider = make_provider(fake.config(retry=RetryPolicy(max_attempts=1)))
    try:
        return await provider.complete(REQUEST, attempts.append), attempts
    except ProviderError as exc:
        return exc, attempts
    finally:
        await provider.aclose()


@settings(max_examples=150, deadline=None)
@given(
    events=st.lists(
        st.tuples(
            st.sampled_from(
                ["message", "message_start", "content_block_start", "content_block_delta", "error"]
            ),
            st.one_of(json_value.map(json.dumps), st.text(max_size=40), st.just("[DONE]")),
        ),
        max_size=6,
    ),
    wire=st.sampled_from(["openai", "anthropic"]),
)
def test_hostile_events_fail_only_as_malformed_or_classified(
    servers: dict[str, FakeLLM], events: list[tuple[str, str]], wire: str
) -> None:
    """Whatever a server streams, the call ends with a reply or a classified ProviderError —
    never another exception — and the failure kind matches what the provider says happened."""
    outcome, attempts = asyncio.run(_replay(servers[wire], _sse_bytes(events)))
    [attempt] = attempts
    if isinstance(outcome, Reply):
        assert attempt.failure is None and attempt.usage == outcome.usage
        return
    kind, message = outcome.kind, str(outcome)
    assert attempt.failure == kind.value
    if kind in REPORTED:
        assert "the server reported an error" in message
    elif kind is FailureKind.CONNECTION:
        assert "the stream ended before the reply was complete" in message
    else:
        assert kind is FailureKind.MALFORMED, message
        assert any(says in message for says in MALFORMED_SAYS), message


def test_a_hostile_error_event_is_classified_by_its_type(servers: dict[str, FakeLLM]) -> None:
    error = json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "m"}})
    outcome, _ = asyncio.run(_replay(servers["anthropic"], _sse_bytes([("error", error)])))
    assert isinstance(outcome, ProviderError) and outcome.kind is FailureKind.RATE_LIMITED
    outcome, _ = asyncio.run(_replay(servers["openai"], _sse_bytes([("message", "[1, 2]")])))
    assert isinstance(outcome, ProviderError) and outcome.kind is FailureKind.MALFORMED


@given(raw=st.one_of(st.text(), json_value.map(json.dumps), json_value))
def test_parse_arguments_never_raises(raw: object) -> None:
    value, error = parse_arguments("tool", raw)
    assert isinstance(value, dict)
    assert (error is None) or (value == {})
