"""The OpenAI Chat Completions provider against a fake server on 127.0.0.1, streamed and not."""

from __future__ import annotations

import functools

import pytest

from harness.provider import make_provider
from harness.provider.openai import OPENROUTER_HEADERS
from harness.types import Request
from tests.conftest import MakeFakeLLM
from tests.harness.provider.common import GREP, READ, STREAM, TWO_CALLS, call_provider
from tests.support.fake_llm import Fault

REQUEST = Request.flat(
    "You are a coding agent.", ("Goal: fix the parser.\n" * 10,), tools=(READ, GREP)
)


call = functools.partial(call_provider, request=REQUEST)
"""One ``complete`` of ``REQUEST`` (or the ``request`` given) through a provider for a fake."""


@pytest.mark.parametrize("stream", STREAM)
async def test_tool_calls_are_parsed(fake_llm: MakeFakeLLM, stream: bool) -> None:
    fake = fake_llm([TWO_CALLS], chunk_chars=3)
    reply, attempts = await call(fake, stream=stream)
    assert [(c.name, dict(c.arguments)) for c in reply.tool_calls] == [
        ("read_file", {"path": "src/parser.py"}),
        ("grep", {"pattern": "def parse", "path_glob": "*.py"}),
    ]
    assert [c.id for c in reply.tool_calls] == ["call_1_0", "call_1_1"]
    assert all(c.arguments_error is None for c in reply.tool_calls)
    assert reply.finish_reason == "tool_calls"
    assert reply.model == fake.config().effective_model
    [attempt] = attempts
    assert (attempt.attempt, attempt.status, attempt.failure) == (1, 200, None)
    assert attempt.finish_reason == "tool_calls"
    assert (attempt.ttft_ms is not None) == stream


@pytest.mark.parametrize("stream", STREAM)
async def test_request_body_is_chat_completions_with_tools(
    fake_llm: MakeFakeLLM, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}])
    await call(fake, stream=stream, model="gpt-test")
    [body] = fake.requests
    assert body["model"] == "gpt-test"
    assert body["messages"] == REQUEST.messages_json()
    assert body["tools"][0] == {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": dict(READ.parameters),
        },
    }
    assert body["stream"] is stream
    assert ("stream_options" in body) == stream
    if stream:
        assert body["stream_options"] == {"include_usage": True}


async def test_no_tools_key_when_there_are_no_tools(fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([{"content": "ok"}])
    await call(fake, stream=True, request=Request.flat("s", ("u",)))
    assert "tools" not in fake.requests[0]


async def test_interleaved_deltas_of_several_calls_are_joined_by_index(
    fake_llm: MakeFakeLLM,
) -> None:
    fake = fake_llm([TWO_CALLS], chunk_chars=2, interleave=True)
    reply, _ = await call(fake, stream=True)
    assert [dict(c.arguments) for c in reply.tool_calls] == [
        {"path": "src/parser.py"},
        {"pattern": "def parse", "path_glob": "*.py"},
    ]


@pytest.mark.parametrize("stream", STREAM)
async def test_content_reply(fake_llm: MakeFakeLLM, stream: bool) -> None:
    text = "The parser is fixed; all tests pass. " * 3
    reply, _ = await call(fake_llm([{"content": text}], chunk_chars=5), stream=stream)
    assert reply.content == text
    assert reply.tool_calls == ()
    assert reply.finish_reason == "stop"


@pytest.mark.parametrize("stream", STREAM)
async def test_usage_as_reported(fake_llm: MakeFakeLLM, stream: bool) -> None:
    fake = fake_llm([{"content": "ok"}], cache_tokens=(40, 0))
    reply, [attempt] = await call(fake, stream=stream)
    usage = reply.usage
    assert not usage.estimated
    assert usage.prompt_tokens is not None and usage.prompt_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + (usage.completion_tokens or 0)
    assert usage.cache_read_tokens == 40
    assert attempt.usage == usage


@pytest.mark.parametrize("stream", STREAM)
async def test_usage_estimated_when_the_server_reports_none(
    fake_llm: MakeFakeLLM, stream: bool
) -> None:
    fake = fake_llm([{"content": "x" * 40}], report_usage=False)
    reply, [attempt] = await call(fake, stream=stream)
    assert reply.usage.estimated
    assert reply.usage.prompt_tokens is not None
    assert reply.usage.prompt_tokens >= REQUEST.chars // 4
    assert reply.usage.completion_tokens == 10
    assert attempt.usage is not None and attempt.usage.estimated


@pytest.mark.parametrize("stream", STREAM)
async def test_invalid_json_arguments_become_an_arguments_error(
    fake_llm: MakeFakeLLM, stream: bool
) -> None:
    fake = fake_llm([TWO_CALLS])
    fake.inject(Fault.bad_arguments('{"path": "a.py"'))
    reply, attempts = await call(fake, stream=stream)
    assert len(attempts) == 1 and attempts[0].failure is None
    for tool_call in reply.tool_calls:
        assert tool_call.arguments == {}
        assert tool_call.arguments_error is not None
        assert "not valid JSON" in tool_call.arguments_error
        assert tool_call.name in tool_call.arguments_error


@pytest.mark.parametrize("stream", STREAM)
async def test_an_unknown_tool_name_passes_through(fake_llm: MakeFakeLLM, stream: bool) -> None:
    fake = fake_llm([{"tool_calls": [{"name": "launch_rockets", "arguments": {"n": 3}}]}])
    reply, _ = await call(fake, stream=stream)
    assert [(c.name, dict(c.arguments)) for c in reply.tool_calls] == [("launch_rockets", {"n": 3})]


@pytest.mark.parametrize("stream", STREAM)
async def test_an_error_inside_a_200_answer_is_classified(
    fake_llm: MakeFakeLLM, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}])
    fake.inject(Fault.stream_error("server", after_events=2))
    reply, attempts = await call(fake, stream=stream)
    assert reply.content == "ok"
    assert [a.failure for a in attempts] == ["server_error", None]


@pytest.mark.parametrize("stream", STREAM)
async def test_bearer_key_sent(fake_llm: MakeFakeLLM, stream: bool) -> None:
    fake = fake_llm([{"content": "ok"}])
    await call(fake, stream=stream, key="sk-abc")
    assert fake.headers[0]["authorization"] == "Bearer sk-abc"
    assert "x-title" not in fake.headers[0]


async def test_no_authorization_header_without_a_key(fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([{"content": "ok"}])
    await call(fake, stream=False, name="ollama")
    assert "authorization" not in fake.headers[0]


async def test_openrouter_preset_sends_attribution_headers(fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([{"content": "ok"}])
    await call(fake, stream=True, key="sk-or", name="openrouter")
    headers = fake.headers[0]
    for name, value in OPENROUTER_HEADERS.items():
        assert headers[name.lower()] == value
    assert fake.requests[0]["model"] == "anthropic/claude-sonnet-4.5"


async def test_one_client_reuses_its_connection(fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([{"content": "a"}, {"content": "b"}, {"content": "c"}])
    provider = make_provider(fake.config(stream=True))
    try:
        for _ in range(3):
            await provider.complete(REQUEST, lambda attempt: None)
    finally:
        await provider.aclose()
    assert len(fake.requests) == 3
    assert fake.connections == 1


async def test_a_server_that_ignores_stream_is_read_whole(fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([TWO_CALLS], ignore_stream=True)
    reply, [attempt] = await call(fake, stream=True)
    assert fake.requests[0]["stream"] is True
    assert [c.name for c in reply.tool_calls] == ["read_file", "grep"]
    assert attempt.failure is None and not reply.usage.estimated
