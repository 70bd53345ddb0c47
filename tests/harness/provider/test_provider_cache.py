"""Prompt caching as the fakes emulate it (issue 12; notes/prompt-caching.md) and as the harness
records it: what ``Usage`` and the store's ``provider_calls`` hold equals what the fake server
reported, request by request, on both wires, streamed and whole. The emulators' own rules
(128-token steps, the 1,024-token minimum, breakpoints and the 20-block lookback) are checked
on their own first."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import pytest

from harness.types import Message, Reply, Request, Role, ToolCall
from tests.conftest import MakeFakeLLM
from tests.harness.provider.common import READ, STREAM
from tests.support.fake_cache import AnthropicBreakpointCache, OpenAIPrefixCache, openai_prompt
from tests.support.provider_store import complete_recorded

LONG = "observation text that stays the same from turn to turn. " * 100  # ~5,600 chars


def turns(n: int) -> Request:
    """The transcript after ``n`` tool turns: each turn appends; only the trailer changes."""
    messages = [Message(Role.USER, ("Goal: refactor the parser.", LONG))]
    for i in range(n):
        call = ToolCall(f"call_{i}", "read_file", {"path": f"src/m{i}.py"})
        messages.append(Message(Role.ASSISTANT, (f"Reading module {i}.",), tool_calls=(call,)))
        messages.append(Message(Role.TOOL, (f"[read src/m{i}.py]\n" + LONG,), tool_call_id=call.id))
    return Request("You are a coding agent.", tuple(messages), f"Step {n + 1} of 20.", (READ,))


# -- the emulators' rules -----------------------------------------------------------------


def openai_body(*texts: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": t} for t in texts]}


def test_openai_caches_the_shared_prefix_in_128_token_steps_from_1024() -> None:
    cache = OpenAIPrefixCache()
    short = openai_body("s" * 2000)
    assert cache.process(short) == (math.ceil(len(openai_prompt(short)) / 4), 0)
    assert cache.process(openai_body("s" * 2000, "t"))[1] == 0  # under 1,024 tokens
    big = openai_body("b" * 8000)
    total, cached = cache.process(big)
    assert total > 1024
    assert cached == 0  # shares only `[]{"role":"user","content":"` with what came before
    grown = openai_body("b" * 8000, "more " * 400)
    total, cached = cache.process(grown)
    shared = len(openai_prompt(big)) - 2  # all but the closing `"}`
    assert cached == shared // 4 // 128 * 128 and cached % 128 == 0
    assert 0 < cached < total


def anthropic_body(blocks: list[str], marks: set[int]) -> dict[str, Any]:
    content = []
    for i, b in enumerate(blocks):
        block: dict[str, Any] = {"type": "text", "text": b}
        if i in marks:
            block["cache_control"] = {"type": "ephemeral"}
        content.append(block)
    return {"messages": [{"role": "user", "content": content}]}


def test_anthropic_writes_at_breakpoints_and_reads_back_within_20_blocks() -> None:
    cache = AnthropicBreakpointCache()
    blocks = ["x" * 500] * 10  # ~1,270 tokens of blocks
    fresh, read, write = cache.process(anthropic_body(blocks, {9}))
    assert read == 0 and write > 1024 and fresh < 20  # the whole prompt written
    grown = [*blocks, *["y" * 40] * 20]
    fresh, read2, write2 = cache.process(anthropic_body(grown, {29}))
    assert read2 == write  # found 20 blocks back from the breakpoint
    assert 0 < write2 < read2  # writes only what the 20 new blocks add
    farther = [*blocks, *["z" * 40] * 21]
    _, read3, _ = cache.process(anthropic_body(farther, {30}))
    assert read3 == 0  # 21 blocks back: out of the lookback's reach


def test_anthropic_does_not_cache_under_1024_tokens_or_without_a_breakpoint() -> None:
    cache = AnthropicBreakpointCache()
    assert cache.process(anthropic_body(["a" * 4000], {0}))[1:] == (0, 0)
    assert cache.process(anthropic_body(["a" * 4000, "b"], {0}))[1:] == (0, 0)
    assert cache.process(anthropic_body(["c" * 8000], set()))[1:] == (0, 0)
    assert cache.process(anthropic_body(["c" * 8000], set()))[1:] == (0, 0)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_entries_expire_after_the_idle_lifetime_and_each_use_renews_it() -> None:
    clock = Clock()
    anthropic = AnthropicBreakpointCache(ttl=300.0, clock=clock)
    body = anthropic_body(["x" * 500] * 10, {9})
    _, _, written = anthropic.process(body)
    clock.now = 299.0
    assert anthropic.process(body)[1:] == (written, 0)  # read, and renewed
    clock.now = 299.0 + 299.0
    assert anthropic.process(body)[1:] == (written, 0)
    clock.now += 300.0
    assert anthropic.process(body)[1:] == (0, written)  # expired: written again
    openai = OpenAIPrefixCache(ttl=600.0, clock=clock)
    big = openai_body("b" * 8000)
    openai.process(big)
    clock.now += 599.0
    assert openai.process(big)[1] > 0
    clock.now += 600.0
    assert openai.process(big)[1] == 0


# -- what the harness records equals what the fakes reported -------------------------------


def reported(fake_usage: dict[str, Any], wire: str) -> tuple[int, int | None, int | None]:
    if wire == "openai":
        cached = fake_usage["prompt_tokens_details"]["cached_tokens"]
        return fake_usage["prompt_tokens"], cached, None
    read = fake_usage["cache_read_input_tokens"]
    write = fake_usage["cache_creation_input_tokens"]
    return fake_usage["input_tokens"] + read + write, read, write


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
@pytest.mark.parametrize("stream", STREAM)
async def test_recorded_cache_tokens_equal_what_the_fake_reported(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}] * 4, wire=wire)
    config = fake.config(stream=stream)
    recorded = []
    for n in range(4):
        outcome, _, rows = await complete_recorded(config, turns(n), tmp_path / f"{n}.db")
        assert isinstance(outcome, Reply)
        [row] = rows
        usage = outcome.usage
        assert not usage.estimated
        assert (row["cache_read_tokens"], row["cache_write_tokens"]) == (
            usage.cache_read_tokens,
            usage.cache_write_tokens,
        )
        assert row["prompt_tokens"] == usage.prompt_tokens
        recorded.append((usage.prompt_tokens, usage.cache_read_tokens, usage.cache_write_tokens))
    usages = fake.usages
    assert all(u is not None for u in usages)
    assert recorded == [reported(u, wire) for u in usages if u is not None]
    reads = [r[1] for r in recorded]
    assert reads[0] == 0 and all(r is not None and r > 0 for r in reads[1:])  # the cache works
    if wire == "anthropic":  # each request writes what it adds, and reads the previous prefix
        assert all(r[2] is not None and r[2] > 0 for r in recorded)
        for before, after in itertools.pairwise(recorded):
            assert after[1] == (before[1] or 0) + (before[2] or 0)
