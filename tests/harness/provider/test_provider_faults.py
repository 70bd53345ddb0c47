"""Faults on the wire, for every provider and mode: retried, classified and reported — one
``Attempt`` per try — against a fake server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from harness.errors import ContextOverflowError, FailureKind, ProviderError
from harness.provider import RetryPolicy, Timeouts, make_provider
from harness.types import Attempt, Reply, Request
from tests.conftest import MakeFakeLLM
from tests.support.fake_llm import FakeLLM, Fault

KEY = "sk-secret-DO-NOT-LEAK-0123456789"
REQUEST = Request.flat("system prompt", ("user message " * 20,))
MODES = [
    pytest.param("openai", False, id="openai-whole"),
    pytest.param("openai", True, id="openai-stream"),
    pytest.param("anthropic", False, id="anthropic-whole"),
    pytest.param("anthropic", True, id="anthropic-stream"),
]


class Sleeps:
    """Records the backoff waits instead of sleeping them."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


class Calls:
    def __init__(self) -> None:
        self.attempts: list[Attempt] = []

    def __call__(self, attempt: Attempt) -> None:
        self.attempts.append(attempt)

    @property
    def failures(self) -> list[str | None]:
        return [a.failure for a in self.attempts]


async def run(
    fake: FakeLLM,
    stream: bool,
    calls: Calls,
    *,
    sleeps: Sleeps | None = None,
    **config: Any,
) -> Reply:
    options: dict[str, Any] = {"sleep": sleeps} if sleeps is not None else {}
    provider = make_provider(fake.config(stream=stream, **config), KEY, **options)
    try:
        return await provider.complete(REQUEST, calls)
    finally:
        await provider.aclose()


async def failed_once(fake: FakeLLM, stream: bool, fault: Fault) -> tuple[ProviderError, Calls]:
    """Inject ``fault``, then make a call, which must fail with no retry (the server saw one
    request): its error and its attempts."""
    fake.inject(fault)
    calls = Calls()
    with pytest.raises(ProviderError) as caught:
        await run(fake, stream, calls)
    assert len(fake.requests) == 1
    return caught.value, calls


def assert_no_key(*things: object) -> None:
    for thing in things:
        assert KEY not in repr(thing)
        assert KEY not in str(thing)


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_429_with_retry_after_is_waited_then_retried(
    fake_llm: MakeFakeLLM, wire: str, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    fake.inject(Fault.rate_limited(retry_after="1"))
    calls, sleeps = Calls(), Sleeps()
    reply = await run(fake, stream, calls, sleeps=sleeps)
    assert reply.content == "ok"
    assert calls.failures == ["rate_limited", None]
    assert [a.attempt for a in calls.attempts] == [1, 2]
    assert calls.attempts[0].status == 429
    assert calls.attempts[0].error is not None
    assert "retrying in 1.0 s" in calls.attempts[0].error
    assert sleeps.waits == [1.0]


async def test_retry_after_is_really_waited(fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([{"content": "ok"}])
    fake.inject(Fault.rate_limited(retry_after="1"))
    calls = Calls()
    started = time.monotonic()
    await run(fake, True, calls)
    assert time.monotonic() - started >= 0.95
    assert calls.failures == ["rate_limited", None]


async def test_retry_after_is_capped(fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([{"content": "ok"}])
    fake.inject(Fault.rate_limited(retry_after="3600"))
    sleeps = Sleeps()
    policy = RetryPolicy(backoff_base_s=0.01, retry_after_cap_s=2.0)
    await run(fake, False, Calls(), sleeps=sleeps, retry=policy)
    assert sleeps.waits == [2.0]


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_500_then_200_is_retried_with_backoff(
    fake_llm: MakeFakeLLM, wire: str, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    fake.inject(Fault.server_error(500), Fault.server_error(529 if wire == "anthropic" else 503))
    calls, sleeps = Calls(), Sleeps()
    policy = RetryPolicy(backoff_base_s=1.0, backoff_cap_s=30.0)
    reply = await run(fake, stream, calls, sleeps=sleeps, retry=policy)
    assert reply.content == "ok"
    assert calls.failures == ["server_error", "server_error", None]
    first, second = sleeps.waits
    assert 0.5 <= first <= 1.0 and 1.0 <= second <= 2.0  # exponential, jittered


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_retries_exhausted_raise_a_classified_error(
    fake_llm: MakeFakeLLM, wire: str, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    fake.inject(*[Fault.server_error()] * 3)
    calls = Calls()
    with pytest.raises(ProviderError) as caught:
        await run(fake, stream, calls, retry=RetryPolicy(max_attempts=3, backoff_base_s=0))
    error = caught.value
    assert (error.kind, error.status, error.retryable) == (FailureKind.SERVER_ERROR, 500, True)
    assert "after 3 attempts" in str(error)
    assert "HTTP 500" in str(error)
    assert calls.failures == ["server_error"] * 3
    assert "retrying" not in (calls.attempts[-1].error or "")


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_a_hang_past_the_read_timeout_is_retried_then_fails_as_timeout(
    fake_llm: MakeFakeLLM, wire: str, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    fake.inject(Fault.hang(5), Fault.hang(5, after_events=2))
    calls = Calls()
    with pytest.raises(ProviderError) as caught:
        await run(
            fake,
            stream,
            calls,
            timeouts=Timeouts(connect=1, read=0.2, total=5),
            retry=RetryPolicy(max_attempts=2, backoff_base_s=0),
        )
    assert caught.value.kind is FailureKind.TIMEOUT
    assert calls.failures == ["timeout", "timeout"]
    assert all(a.latency_ms < 2000 for a in calls.attempts)


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_the_overall_deadline_ends_an_attempt(
    fake_llm: MakeFakeLLM, wire: str, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    fake.inject(Fault.hang(10, after_events=1))
    calls = Calls()
    # 2 s: the deadline ends the hung attempt (read would wait 4 s), and the retry still has
    # time to finish on a loaded machine (0.3 s did not, under a load of 5 on 2 cores)
    reply = await run(fake, stream, calls, timeouts=Timeouts(connect=1, read=4, total=2))
    assert reply.content == "ok"
    assert calls.failures == ["timeout", None]
    assert "deadline" in (calls.attempts[0].error or "")


@pytest.mark.parametrize(("wire", "stream"), MODES)
@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(Fault.drop(after_events=2), id="dropped"),
        pytest.param(Fault.truncated(after_events=2), id="truncated"),
    ],
)
async def test_a_connection_cut_mid_answer_is_retried(
    fake_llm: MakeFakeLLM, wire: str, stream: bool, fault: Fault
) -> None:
    fake = fake_llm(
        [{"tool_calls": [{"name": "read_file", "arguments": {"path": "a"}}]}], wire=wire
    )
    fake.inject(fault)
    calls = Calls()
    reply = await run(fake, stream, calls)
    assert [c.name for c in reply.tool_calls] == ["read_file"]
    assert calls.failures == ["connection", None]
    assert calls.attempts[0].status == 200


async def _unreachable(base_url: str) -> tuple[ProviderError, Calls]:
    config = FakeLLM().config(base_url=base_url, retry=RetryPolicy(max_attempts=5))
    calls, sleeps = Calls(), Sleeps()
    provider = make_provider(config, KEY, sleep=sleeps)
    try:
        with pytest.raises(ProviderError) as caught:
            await provider.complete(REQUEST, calls)
    finally:
        await provider.aclose()
    assert len(sleeps.waits) == 1
    return caught.value, calls


async def test_connection_refused_is_retried_once_not_five_times() -> None:
    fake = FakeLLM().start()
    url = fake.url
    fake.stop()  # nothing listens on the port any more
    error, calls = await _unreachable(url)
    assert error.kind is FailureKind.CONNECTION
    assert calls.failures == ["connection", "connection"]
    assert [(a.attempt, a.max_attempts) for a in calls.attempts] == [(1, 2), (2, 2)]
    assert "after 2 attempts" in str(error)
    assert "check the base URL" in str(error)


async def test_a_dns_failure_is_retried_once_not_five_times() -> None:
    error, calls = await _unreachable(
        "http://harness-lsp-test.invalid/v1"
    )  # RFC 6761: no such name
    assert error.kind is FailureKind.CONNECTION
    assert calls.failures == ["connection", "connection"]
    assert "cannot connect" in str(error)


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_dropped_connections_keep_the_retry_policy(
    fake_llm: MakeFakeLLM, wire: str, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    fake.inject(*[Fault.drop(after_events=1)] * 4)
    calls = Calls()
    reply = await run(fake, stream, calls, sleeps=Sleeps())
    assert reply.content == "ok"
    assert calls.failures == ["connection"] * 4 + [None]


async def test_a_retried_attempt_says_when_and_how_many_in_fields(fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([{"content": "ok"}])
    fake.inject(Fault.rate_limited(retry_after="2"), Fault.server_error())
    calls = Calls()
    policy = RetryPolicy(max_attempts=3, backoff_base_s=0.5, backoff_cap_s=0.5)
    await run(fake, True, calls, sleeps=Sleeps(), retry=policy)
    first, second, third = calls.attempts
    assert (first.failure, first.retry_in_s, first.max_attempts) == ("rate_limited", 2.0, 3)
    assert second.failure == "server_error" and second.max_attempts == 3
    assert second.retry_in_s is not None and 0.25 <= second.retry_in_s <= 0.5
    assert (third.failure, third.retry_in_s, third.attempt, third.max_attempts) == (
        None,
        None,
        3,
        3,
    )


async def test_the_last_failed_attempt_says_no_retry(fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([{"content": "ok"}])
    fake.inject(Fault.server_error(), Fault.unauthorized())
    calls = Calls()
    with pytest.raises(ProviderError):
        await run(fake, False, calls, sleeps=Sleeps())
    assert [(a.failure, a.max_attempts) for a in calls.attempts] == [
        ("server_error", 5),
        ("auth", 2),
    ]
    assert calls.attempts[0].retry_in_s is not None
    assert calls.attempts[1].retry_in_s is None


@pytest.mark.parametrize(("wire", "stream"), MODES)
@pytest.mark.parametrize("status", [400, 413])
async def test_context_length_rejection_is_never_retried(
    fake_llm: MakeFakeLLM, wire: str, stream: bool, status: int
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    error, calls = await failed_once(fake, stream, Fault.context_length(status))
    assert isinstance(error, ContextOverflowError)
    assert error.kind is FailureKind.CONTEXT_OVERFLOW
    assert error.status == status
    assert "context window" in str(error)
    assert calls.failures == ["context_overflow"]


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_401_is_auth_not_retried_and_never_shows_the_key(
    fake_llm: MakeFakeLLM, wire: str, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    # the server echoes the key in its message
    error, calls = await failed_once(fake, stream, Fault.unauthorized())
    assert (error.kind, error.status) == (FailureKind.AUTH, 401)
    assert calls.failures == ["auth"]
    variable = "OPENAI_API_KEY" if wire == "openai" else "ANTHROPIC_API_KEY"
    assert f"HARNESS_API_KEY or {variable}" in str(error)
    assert "[redacted]" in str(error)
    assert_no_key(error, error.args, calls.attempts)


@pytest.mark.parametrize(("wire", "stream"), MODES)
@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        pytest.param(Fault.empty_choices(), FailureKind.MALFORMED, id="no-content"),
        pytest.param(Fault.invalid_body(), FailureKind.MALFORMED, id="invalid-json"),
        pytest.param(Fault.http(404, "bad_request"), FailureKind.BAD_REQUEST, id="other-4xx"),
    ],
)
async def test_a_malformed_answer_or_a_bad_request_is_classified_not_retried(
    fake_llm: MakeFakeLLM, wire: str, stream: bool, fault: Fault, kind: FailureKind
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    error, calls = await failed_once(fake, stream, fault)
    assert (error.kind, error.retryable) == (kind, False)
    assert calls.failures == [kind.value]


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_the_key_never_reaches_attempts_or_errors(
    fake_llm: MakeFakeLLM, wire: str, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    fake.inject(
        Fault.http(500, body=f"internal error for key {KEY}"),
        Fault.drop(),
        Fault.http(400, body={"error": {"message": f"bad key {KEY}"}}),
    )
    calls = Calls()
    with pytest.raises(ProviderError) as caught:
        await run(fake, stream, calls)
    assert calls.failures == ["server_error", "connection", "bad_request"]
    assert_no_key(caught.value, caught.value.args, calls.attempts)


@pytest.mark.parametrize(("wire", "stream"), MODES)
async def test_cancellation_closes_the_call_promptly_and_is_recorded(
    fake_llm: MakeFakeLLM, wire: str, stream: bool
) -> None:
    fake = fake_llm([{"content": "ok"}], wire=wire)
    fake.inject(Fault.hang(30, after_events=2) if stream else Fault.hang(30))
    calls = Calls()
    provider = make_provider(fake.config(stream=stream), KEY)
    task = asyncio.create_task(provider.complete(REQUEST, calls))
    while not fake.requests:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)  # let the first events arrive
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 0.5
    assert calls.failures == ["cancelled"]
    deadline = time.monotonic() + 2
    while fake.disconnects == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert fake.disconnects == 1  # the server saw the connection close
    await provider.aclose()


async def test_cancellation_during_backoff_is_not_an_attempt(fake_llm: MakeFakeLLM) -> None:
    fake = fake_llm([{"content": "ok"}])
    fake.inject(Fault.rate_limited(retry_after="30"))
    calls = Calls()
    provider = make_provider(fake.config(), KEY)
    task = asyncio.create_task(provider.complete(REQUEST, calls))
    while not calls.attempts:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await provider.aclose()
    assert calls.failures == ["rate_limited"]
