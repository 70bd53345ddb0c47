"""The Anthropic Messages provider against a fake server on 127.0.0.1, streamed and not."""

from __future__ import annotations

import functools

import pytest

from harness.provider.anthropic import ANTHROPIC_VERSION
from harness.types import Request
from tests.conftest import MakeFakeLLM
from tests.harness.provider.common import READ, STREAM, TWO_CALLS, call_provider
from tests.support.fake_llm import Fault

REQUEST = Request.flat("You are a coding agent.", ("Goal: fix the parser.\n" * 10,), tools=(READ,))


call = functools.partial(call_provider, request=REQUEST)
"""One ``complete`` of ``REQUEST`` (or the ``request`` given) through a provider for a fake."""


@pytest.mark.parametrize("stream", STREAM)
async def test_tool_use_blocks_become_tool_calls(fake_llm: MakeFakeLLM, stream: bool) -> None:
    fake = fake_llm([{"content": "Let me look.", **TWO_CALLS}], wire="anthropic", chunk_chars=3)
    reply, [attempt] = await call(fake, stream=stream)
    assert reply.content == "Let me look."
    assert [(c.id, c.name, dict(c.arguments)) for c in reply.tool_calls] == [
        ("toolu_1_0", "read_file", {"path": "src/parser.py"}),
        ("toolu_1_1", "grep", {"pattern": "def parse", "path_glob": "*.py"}),
    ]
    assert reply.finish_reason == "tool_use"
    assert (attempt.status, attempt.failure, attempt.finish_reason) == (200, None, "tool_use")
    assert (attempt.ttft_ms is not None) == stream


@pytest.mark.parametrize("stream", STREAM)
async def test_request_body_is_messages_with_tools(fake_llm: MakeFakeLLM, stream: bool) -> None:
    fake = fake_llm([{"content": "ok"}], wire="anthropic")
    await call(fake, stream=stream, key="sk-ant-1", model="claude-test", max_output_tokens=1000)
    [body] = fake.requests
    assert body["model"] == "claude-test"
    assert body["max_tokens"] == 1000
    assert body["system"] == [
        {"type": "text", "text": REQUEST.system, "cache_control": {"type": "ephemeral"}}
    ]
    # the flat form without a trailer: one user message, its part a text block, not marked
    # (it changes every turn: only the system block is worth caching)
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": REQUEST.user}]}
    ]
    assert body["tools"] == [
        {"name": "read_file", "description": "Read a file.", "input_schema": dict(READ.parameters)}
    ]
    assert body["stream"] is stream
    headers = fake.headers[0]
    assert headers["x-api-key"] == "sk-ant-1"
    assert headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in headers


async def test_empty_system_and_no_tools_are_left_out(fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([{"content": "ok"}], wire="anthropic")
    await call(fake, stream=True, request=Request.flat("", ("hello",)))
    assert "system" not in fake.requests[0]
    assert "tools" not in fake.requests[0]


@pytest.mark.parametrize("stream", STREAM)
async def test_usage_counts_cache_reads_and_writes(fake_llm: MakeFakeLLM, stream: bool) -> None:
    fake = fake_llm([{"content": "ok"}], wire="anthropic", cache_tokens=(300, 50))
    reply, [attempt] = await call(fake, stream=stream)
    usage = reply.usage
    assert not usage.estimated
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (300, 50)
    assert usage.prompt_tokens is not None and usage.prompt_tokens > 350
    assert usage.total_tokens == usage.prompt_tokens + (usage.completion_tokens or 0)
    assert usage.completion_tokens is not None and usage.completion_tokens > 1  # message_delta
    assert attempt.usage == usage


@pytest.mark.parametrize("stream", STREAM)
async def test_usage_estimated_when_absent(fake_llm: MakeFakeLLM, stream: bool) -> None:
    fake = fake_llm([{"content": "y" * 20}], wire="anthropic", report_usage=False)
    reply, _ = await call(fake, stream=stream)
    assert reply.usage.estimated
    assert reply.usage.completion_tokens == 5


@pytest.mark.parametrize("stream", STREAM)
async def test_invalid_tool_input_becomes_an_arguments_error(
    fake_llm: MakeFakeLLM, stream: bool
) -> None:
    fake = fake_llm([TWO_CALLS], wire="anthropic")
    fake.inject(Fault.bad_arguments('{"path": '))
    reply, _ = await call(fake, stream=stream)
    assert len(reply.tool_calls) == 2
    for tool_call in reply.tool_calls:
        assert tool_call.arguments == {}
        assert tool_call.arguments_error is not None
        assert "not valid JSON" in tool_call.arguments_error


async def test_a_tool_call_cut_off_at_max_tokens_says_so(fake_llm: MakeFakeLLM) -> None:
    turn = {**TWO_CALLS, "finish_reason": "max_tokens"}
    fake = fake_llm([turn], wire="anthropic")
    fake.inject(Fault.bad_arguments('{"path": "src/par'))
    reply, _ = await call(fake, stream=True)
    assert reply.finish_reason == "max_tokens"
    error = reply.tool_calls[0].arguments_error
    assert error is not None and "cut off at the output token limit" in error


@pytest.mark.parametrize("stream", STREAM)
async def test_an_unknown_tool_name_passes_through(fake_llm: MakeFakeLLM, stream: bool) -> None:
    fake = fake_llm([{"tool_calls": [{"name": "teleport", "arguments": {}}]}], wire="anthropic")
    reply, _ = await call(fake, stream=stream)
    assert [(c.name, dict(c.arguments), c.arguments_error) for c in reply.tool_calls] == [
        ("teleport", {}, None)
    ]


@pytest.mark.parametrize("stream", STREAM)
async def test_overloaded_error_event_is_retried(fake_llm: MakeFakeLLM, stream: bool) -> None:
    fake = fake_llm([{"content": "ok"}], wire="anthropic")
    fake.inject(Fault.stream_error("overloaded", after_events=3))
    reply, attempts = await call(fake, stream=stream)
    assert reply.content == "ok"
    assert [a.failure for a in attempts] == ["server_error", None]
    assert attempts[0].error is not None and "overloaded_error" in attempts[0].error
