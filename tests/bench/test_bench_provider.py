"""Provider benchmarks against the fake server on 127.0.0.1 (run: ``pytest tests/bench -s``).

1. Harness overhead per call: ``provider.complete`` vs a bare httpx request for the same body
   to the same server in the same run, alternating, median of N (target ≤ 2 ms per call).
2. SSE parse throughput on a ~5 MB stream: the provider's whole pipeline (httpx, httpx-sse,
   JSON, delta assembly, the 4 MB answer cap's byte accounting) vs bare httpx-sse with
   ``json.loads`` of each event; the cap's own cost is the pipeline with and without it. The
   end-to-end figure raises ``max_answer_bytes`` so the 5 MB answer is not cut.
3. Building the request body of a long transcript (40 tool turns, 120 messages) for each
   wire vs ``json.dumps`` of the same body (what httpx does with it anyway).

Numbers are printed; only the structure of the results is asserted.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from httpx_sse import EventSource, aconnect_sse

from harness.provider import make_provider
from harness.provider.anthropic import request_body as anthropic_body
from harness.provider.http import HttpProvider
from harness.provider.openai import request_body as openai_body
from harness.types import Attempt, Message, Request, Role, ToolCall, ToolSchema
from tests.conftest import MakeFakeLLM
from tests.support.fake_llm import FakeLLM

N_CALLS = 200
STREAM_MB = 5
TOOLS = (
    ToolSchema("read_file", "Read a file.", {"type": "object", "properties": {}}),
    ToolSchema("grep", "Search files.", {"type": "object", "properties": {}}),
)
REQUEST = Request.flat(
    "You are a coding agent. " * 20, ("Goal and observations. " * 200,), tools=TOOLS
)
TURN = {
    "content": "Reading the parser first.",
    "tool_calls": [{"name": "read_file", "arguments": {"path": "src/parser.py"}}],
}
MODES = [
    pytest.param("openai", False, id="openai-whole"),
    pytest.param("openai", True, id="openai-stream"),
    pytest.param("anthropic", False, id="anthropic-whole"),
    pytest.param("anthropic", True, id="anthropic-stream"),
]


def _ignore(attempt: Attempt) -> None:
    return None


def _fake_forever(fake_llm: MakeFakeLLM, wire: str, **options: Any) -> FakeLLM:
    # Fixed cache figures: the cache emulation's work would be timed in both arms, as noise.
    fake = fake_llm([], wire=wire, cache_tokens=(0, 0), **options)
    fake.add_turns(*[TURN] * (3 * N_CALLS + 20))
    return fake


async def _bare(client: httpx.AsyncClient, provider: HttpProvider, body: dict[str, Any]) -> int:
    """The same request with nothing of ours around it; returns bytes received."""
    url = provider.config.effective_base_url + provider.path
    if not body["stream"]:
        response = await client.post(url, json=body)
        response.json()
        return len(response.content)
    received = 0
    async with aconnect_sse(client, "POST", url, json=body) as source:
        async for event in source.aiter_sse():
            received += len(event.data)
            if event.data and event.data != "[DONE]":
                json.loads(event.data)
    return received


async def _timed(call: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_overhead_per_call(fake_llm: MakeFakeLLM, wire: str, stream: bool) -> None:
    fake = _fake_forever(fake_llm, wire)
    provider = make_provider(fake.config(stream=stream), "sk-bench")
    assert isinstance(provider, HttpProvider)
    body = provider.body(REQUEST, stream)
    bare_times: list[float] = []
    ours: list[float] = []
    async with httpx.AsyncClient(headers=dict(provider.headers("sk-bench"))) as client:
        for _ in range(10):  # warm up both connections
            await _bare(client, provider, body)
            await provider.complete(REQUEST, _ignore)
        for _ in range(N_CALLS):
            bare_times.append(await _timed(lambda: _bare(client, provider, body)))
            ours.append(await _timed(lambda: provider.complete(REQUEST, _ignore)))
    await provider.aclose()
    bare_ms, ours_ms = statistics.median(bare_times), statistics.median(ours)
    print(
        f"\n[bench] overhead {wire:9} {'stream' if stream else 'whole':6}: "
        f"bare httpx {bare_ms:.3f} ms, provider {ours_ms:.3f} ms, "
        f"overhead {ours_ms - bare_ms:+.3f} ms per call (median of {N_CALLS})"
    )
    assert len(bare_times) == len(ours) == N_CALLS
    assert bare_ms > 0 and ours_ms > 0


async def _parse_bare(raw: bytes) -> None:
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=raw)
    async for event in EventSource(response).aiter_sse():
        if event.data and event.data != "[DONE]":
            json.loads(event.data)


def _sse_response(raw: bytes) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=raw)


async def _parse_ours(provider: HttpProvider, raw: bytes) -> str:
    builder = await provider.read_stream(_sse_response(raw))
    return builder.build(REQUEST, provider.model).content


async def _parse_uncapped(provider: HttpProvider, raw: bytes) -> str:
    """The pipeline as it was before the answer cap: the decoder fed straight from httpx-sse."""
    decoder = provider.decoder()
    async for event in EventSource(_sse_response(raw)).aiter_sse():
        decoder.feed(event)
    decoder.finish()
    return decoder.builder.build(REQUEST, provider.model).content


async def _median_s(call: Callable[[], Awaitable[object]], n: int = 5) -> float:
    return statistics.median([await _timed(call) for _ in range(n)]) / 1000


# Content chars giving a ~5 MB stream of 64-char deltas in each wire's envelope.
@pytest.mark.parametrize(("wire", "chars"), [("openai", 1_200_000), ("anthropic", 1_700_000)])
async def test_sse_parse_throughput(fake_llm: MakeFakeLLM, wire: str, chars: int) -> None:
    content = ("def parse(tokens):\n    return [t for t in tokens if t]\n" * 40_000)[:chars]
    fake = fake_llm(
        [{"content": content}] * 8, wire=wire, chunk_chars=64, write_size=65536, cache_tokens=(0, 0)
    )
    provider = make_provider(fake.config(stream=True, max_answer_bytes=8_000_000), "sk-bench")
    assert isinstance(provider, HttpProvider)
    body = provider.body(REQUEST, True)
    async with httpx.AsyncClient(headers=dict(provider.headers("sk-bench"))) as client:
        url = provider.config.effective_base_url + provider.path
        async with client.stream("POST", url, json=body) as response:
            raw = await response.aread()
    mb = len(raw) / 1e6
    # Interleaved, so that a load change on a shared machine hits every arm alike.
    times: dict[str, list[float]] = {"bare": [], "ours": [], "uncapped": []}
    for _ in range(7):
        times["bare"].append(await _timed(lambda: _parse_bare(raw)))
        times["ours"].append(await _timed(lambda: _parse_ours(provider, raw)))
        times["uncapped"].append(await _timed(lambda: _parse_uncapped(provider, raw)))
    bare_s, ours_s, uncapped_s = (statistics.median(times[k]) / 1000 for k in times)
    e2e_s = await _median_s(lambda: provider.complete(REQUEST, _ignore), n=3)
    await provider.aclose()
    print(
        f"\n[bench] SSE {wire:9}: {mb:.2f} MB, {raw.count(b'data: ')} events; parse only: "
        f"provider {mb / ours_s:.1f} MB/s (without the answer cap {mb / uncapped_s:.1f} MB/s), "
        f"bare httpx-sse + json.loads {mb / bare_s:.1f} MB/s; "
        f"end to end over 127.0.0.1 (fake server included): {mb / e2e_s:.1f} MB/s"
    )
    assert await _parse_ours(provider, raw) == content
    assert await _parse_uncapped(provider, raw) == content
    assert 4.5 <= mb <= 6


def _long_transcript(turns: int = 40) -> Request:
    messages = [Message(Role.USER, ("Goal: refactor the parser.", "Memory: (none)"))]
    for i in range(turns):
        calls = (
            ToolCall(f"call_{i}_0", "read_file", {"path": f"src/m{i}.py"}),
            ToolCall(f"call_{i}_1", "grep", {"pattern": f"def f{i}", "path_glob": "*.py"}),
        )
        messages.append(Message(Role.ASSISTANT, (f"Looking at module {i}.",), tool_calls=calls))
        messages += [
            Message(Role.TOOL, (f"[read src/m{i}.py]\n" + "x = 1\n" * 160,), tool_call_id=c.id)
            for c in calls
        ]
    return Request("You are a coding agent. " * 20, tuple(messages), "Step 41 of 100.", TOOLS)


def test_transcript_body_building_cost() -> None:
    request = _long_transcript()
    builders: dict[str, Callable[[], dict[str, Any]]] = {
        "openai": lambda: openai_body(request, model="m", stream=True),
        "anthropic": lambda: anthropic_body(request, model="m", max_tokens=8192, stream=True),
    }
    for wire, build in builders.items():
        body = build()
        built, dumped = [], []
        for _ in range(200):
            started = time.perf_counter()
            build()
            built.append(time.perf_counter() - started)
            started = time.perf_counter()
            json.dumps(body, ensure_ascii=False, separators=(",", ":"))
            dumped.append(time.perf_counter() - started)
        size = len(json.dumps(body))
        print(
            f"\n[bench] body {wire:9}: {len(request.messages)} messages, {size / 1000:.0f} kB: "
            f"build {statistics.median(built) * 1e6:.0f} µs, "
            f"json.dumps {statistics.median(dumped) * 1e6:.0f} µs (median of 200)"
        )
        assert len(body["messages"]) >= len(request.messages) // 2
