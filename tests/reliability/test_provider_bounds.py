"""A provider answer cannot eat memory or time without bound (SPEC §6.1, §9; issue 11 seen 2):
an answer over 4 MB — content, tool-call arguments, both, or one line that never ends,
streamed or whole — is a ``malformed`` failure with RSS growth bounded; a slow-loris stream is
cut at the attempt deadline, and timed-out attempts are retried at most twice whatever the
retry policy allows. Every attempt is checked as a ``provider_calls`` row of a real store."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from harness.errors import FailureKind, ProviderError
from harness.provider import RetryPolicy, Timeouts
from harness.provider.http import MAX_ANSWER_BYTES
from harness.types import Request
from tests.conftest import MakeFakeLLM
from tests.support import figures
from tests.support.fake_llm import Endless, Fault
from tests.support.provider_store import complete_recorded

REQUEST = Request.flat("system", ("a question",))
PAGE = os.sysconf("SC_PAGE_SIZE")
AREA = "provider answers that never end"
RSS_GROWTH_BOUND = 100 * 1024 * 1024  # generous: the answer is cut at 4 MB


def rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


async def peak_rss_while(call: asyncio.Task[object]) -> int:
    peak = rss()
    while not call.done():
        peak = max(peak, rss())
        await asyncio.sleep(0.005)
    return max(peak, rss())


def test_the_defaults_bound_an_attempt() -> None:
    assert Timeouts().total == 180.0
    assert MAX_ANSWER_BYTES == 4_000_000


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
@pytest.mark.parametrize(
    ("stream", "shape"),
    [
        pytest.param(True, "content", id="stream-content"),
        pytest.param(True, "arguments", id="stream-arguments"),
        pytest.param(True, "mixed", id="stream-mixed"),
        pytest.param(True, "line", id="stream-one-endless-line"),
        pytest.param(False, "content", id="whole-endless-body"),
    ],
)
async def test_an_endless_answer_is_malformed_with_memory_bounded(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, stream: bool, shape: Endless
) -> None:
    fake = fake_llm([{"content": "never reached"}], wire=wire)
    fake.inject(Fault.endless(shape))
    config = fake.config(stream=stream, timeouts=Timeouts(connect=2, read=5, total=5))
    before = rss()
    call = asyncio.ensure_future(complete_recorded(config, REQUEST, tmp_path / "h.db"))
    peak = await peak_rss_while(call)
    outcome, attempts, rows = call.result()
    figures.add(AREA, endless_answers=1, cut_as_malformed=rows[0]["failure"] == "malformed")
    figures.peak(AREA, rss_growth_mib=round((peak - before) / 2**20, 1))
    figures.peak(AREA, largest_body_sent_mb=round(fake.sent_bytes[0] / 1e6, 1))
    assert isinstance(outcome, ProviderError)
    assert outcome.kind is FailureKind.MALFORMED
    assert "4,000,000 bytes" in str(outcome)
    assert [a.failure for a in attempts] == ["malformed"]  # never retried
    assert [(r["attempt"], r["failure"], r["status"]) for r in rows] == [(1, "malformed", 200)]
    assert fake.sent_bytes[0] > MAX_ANSWER_BYTES  # the server really sent more than the cap
    assert peak - before < RSS_GROWTH_BOUND, f"RSS grew by {(peak - before) / 1e6:.0f} MB"


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_a_slow_loris_is_cut_at_the_deadline_and_retried_at_most_twice(
    fake_llm: MakeFakeLLM, tmp_path: Path, wire: str, stream: bool
) -> None:
    fake = fake_llm([{"content": "never reached"}], wire=wire)
    fake.inject(*[Fault.trickle(0.05)] * 10)
    config = fake.config(
        stream=stream,
        timeouts=Timeouts(connect=2, read=2, total=0.4),  # a byte every 50 ms: never silent
        retry=RetryPolicy(max_attempts=10, backoff_base_s=0),  # more than timeouts may use
    )
    outcome, attempts, rows = await asyncio.wait_for(
        complete_recorded(config, REQUEST, tmp_path / "h.db"), timeout=30
    )
    figures.add(AREA, slow_loris_calls=1)
    figures.peak(AREA, slow_loris_attempts_max=len(rows))
    assert isinstance(outcome, ProviderError)
    assert outcome.kind is FailureKind.TIMEOUT
    assert "after 3 attempts" in str(outcome)
    assert [(r["attempt"], r["failure"]) for r in rows] == [(n, "timeout") for n in (1, 2, 3)]
    assert all("deadline" in (r["error"] or "") for r in rows)
    assert len(fake.requests) == 3
    assert [a.max_attempts for a in attempts] == [3, 3, 3]
    assert all(a.latency_ms < 5_000 for a in attempts)


async def test_timeouts_and_other_failures_count_separately(
    fake_llm: MakeFakeLLM, tmp_path: Path
) -> None:
    fake = fake_llm([{"content": "ok"}])
    fake.inject(
        Fault.trickle(0.05), Fault.server_error(), Fault.trickle(0.05), Fault.rate_limited("0")
    )
    config = fake.config(
        timeouts=Timeouts(connect=2, read=2, total=0.3),
        retry=RetryPolicy(max_attempts=6, backoff_base_s=0),
    )
    outcome, _, rows = await complete_recorded(config, REQUEST, tmp_path / "h.db")
    assert not isinstance(outcome, ProviderError)
    assert outcome.content == "ok"
    assert [r["failure"] for r in rows] == [
        "timeout",
        "server_error",
        "timeout",
        "rate_limited",
        None,
    ]
