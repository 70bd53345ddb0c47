"""The providers' own recorded streams (../shared/wire-schemas/streams, from the official SDKs'
test suites), replayed byte for byte by the fake server and parsed by the harness: text, tool
calls with their ids and arguments, the finish reason and usage, as the SDKs' tests say."""

from __future__ import annotations

import hashlib
import json

import pytest

from harness.types import Request
from tests.conftest import MakeFakeLLM
from tests.harness.provider.common import call_provider
from tests.support.wire_schemas import RecordedStream, recorded_streams, wire_schemas_dir

STREAMS = [pytest.param(s, id=f"{s.wire}-{s.name}") for s in recorded_streams()]
# (prompt, completion, cache reads, cache writes, model) as each recording reports them.
USAGE = {
    ("openai", "tool_call"): (76, 24, None, None, "gpt-4o-2024-08-06"),
    ("openai", "parallel_tool_calls"): (149, 60, None, None, "gpt-4o-2024-08-06"),
    ("openai", "text"): (14, 30, None, None, "gpt-4o-2024-08-06"),
    ("anthropic", "tool_use"): (377, 65, 0, 0, "claude-sonnet-4-20250514"),
    ("anthropic", "text"): (11, 6, None, None, "claude-3-opus-latest"),
}


def test_the_recordings_are_the_source_blobs() -> None:
    root = wire_schemas_dir() / "streams"
    manifest = json.loads((root / "manifest.json").read_text())
    for wire in ("openai", "anthropic"):
        for entry in manifest[wire].values():
            data = (root / entry["file"]).read_bytes()
            blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
            assert blob == entry["blob"], entry["file"]
    assert {(s.wire, s.name) for s in recorded_streams()} == set(USAGE)


@pytest.mark.parametrize("recorded", STREAMS)
async def test_a_recorded_stream_is_parsed_as_the_sdk_says(
    fake_llm: MakeFakeLLM, recorded: RecordedStream
) -> None:
    fake = fake_llm([{"sse": recorded.data}], wire=recorded.wire)
    reply, [attempt] = await call_provider(fake, stream=True, request=Request.flat("s", ("u",)))
    expect = recorded.expect
    assert fake.sent_bytes == [len(recorded.data)]
    assert reply.content == (expect["content"] or "")
    assert reply.finish_reason == expect["finish_reason"]
    assert [(c.id, c.name, dict(c.arguments)) for c in reply.tool_calls] == [
        (c["id"], c["name"], json.loads(c["arguments"])) for c in expect["tool_calls"]
    ]
    assert all(c.arguments_error is None for c in reply.tool_calls)
    prompt, completion, read, write, model = USAGE[(recorded.wire, recorded.name)]
    usage = reply.usage
    assert not usage.estimated
    assert (usage.prompt_tokens, usage.completion_tokens) == (prompt, completion)
    assert usage.total_tokens == prompt + completion
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (read, write)
    assert reply.model == model
    assert (attempt.failure, attempt.status, attempt.usage) == (None, 200, usage)
