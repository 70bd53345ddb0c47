"""Retry timing and failure classification, as data: the RETRYABLE table, Retry-After,
backoff, and the context-length messages of the servers users run."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from harness.errors import RETRYABLE, FailureKind, ProviderError
from harness.provider import RetryPolicy
from harness.provider.failure import (
    classify_status,
    classify_stream_error,
    classify_transport,
    error_text,
    is_context_overflow,
)
from harness.provider.retry import ATTEMPT_CAPS, UNREACHABLE, backoff_delay, parse_retry_after
from harness.provider.wire import parse_arguments


def test_every_failure_kind_has_a_retryability() -> None:
    assert set(RETRYABLE) == set(FailureKind)
    for kind in FailureKind:
        assert ProviderError(kind, "x").retryable is RETRYABLE[kind]
    retried = {k for k, v in RETRYABLE.items() if v}
    assert retried == {
        FailureKind.RATE_LIMITED,
        FailureKind.SERVER_ERROR,
        FailureKind.TIMEOUT,
        FailureKind.CONNECTION,
    }


def test_every_failure_has_an_attempt_cap_and_only_retried_ones_go_past_one() -> None:
    assert set(ATTEMPT_CAPS) == {*FailureKind, UNREACHABLE}
    for kind, retryable in RETRYABLE.items():
        assert (ATTEMPT_CAPS[kind] != 1) is retryable, kind
    assert ATTEMPT_CAPS[FailureKind.TIMEOUT] == 3  # retried at most twice (§9)
    assert ATTEMPT_CAPS[UNREACHABLE] == 2  # DNS failure, connection refused: once
    assert ATTEMPT_CAPS[FailureKind.RATE_LIMITED] is None  # the policy decides


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        pytest.param({"retry-after": "1"}, 1.0, id="seconds"),
        pytest.param({"retry-after": "2.5"}, 2.5, id="fractional"),
        pytest.param({"retry-after-ms": "1500", "retry-after": "9"}, 1.5, id="ms-wins"),
        pytest.param({"retry-after": "-3"}, 0.0, id="negative"),
        pytest.param({"retry-after": "soon"}, None, id="garbage"),
        pytest.param({}, None, id="absent"),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers) == expected


def test_parse_retry_after_http_date() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    later = format_datetime(now + timedelta(seconds=7), usegmt=True)
    assert parse_retry_after({"retry-after": later}, now=now.timestamp()) == 7.0
    earlier = format_datetime(now - timedelta(seconds=7), usegmt=True)
    assert parse_retry_after({"retry-after": earlier}, now=now.timestamp()) == 0.0


def test_parse_retry_after_reads_httpx_headers_case_insensitively() -> None:
    assert parse_retry_after(httpx.Headers({"Retry-After": "3"})) == 3.0


def test_backoff_is_exponential_jittered_and_capped() -> None:
    policy = RetryPolicy(backoff_base_s=1.0, backoff_cap_s=8.0, retry_after_cap_s=20.0)
    rng = random.Random(7)
    for failures, (low, high) in {1: (0.5, 1), 2: (1, 2), 3: (2, 4), 4: (4, 8), 9: (4, 8)}.items():
        for _ in range(20):
            assert low <= backoff_delay(policy, failures, rng=rng) <= high
    assert backoff_delay(policy, 1, retry_after=3.0) == 3.0
    assert backoff_delay(policy, 1, retry_after=999.0) == 20.0


@pytest.mark.parametrize(
    "message",
    [
        pytest.param(
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 130000 tokens.",
            id="openai",
        ),
        pytest.param("context_length_exceeded", id="openai-code"),
        pytest.param("prompt is too long: 210000 tokens > 200000 maximum", id="anthropic"),
        pytest.param(
            "This model's maximum context length is 4096 tokens. However, you requested 5000 "
            "tokens (4000 in the messages, 1000 in the completion).",
            id="vllm",
        ),
        pytest.param(
            "the request exceeds the available context size. try increasing the context size",
            id="llama.cpp",
        ),
        pytest.param("exceed_context_size_error", id="llama.cpp-type"),
        pytest.param("input length exceeds maximum context length", id="ollama"),
        pytest.param(
            "Trying to keep the first 5000 tokens when context the overflows. However, the model "
            "is loaded with context length of only 4096 tokens",
            id="lm-studio",
        ),
        pytest.param("Input is too long for requested model; context window exceeded", id="misc"),
    ],
)
def test_context_length_messages_are_recognised(message: str) -> None:
    assert is_context_overflow(message)
    assert classify_status(400, message) is FailureKind.CONTEXT_OVERFLOW


@pytest.mark.parametrize(
    ("status", "detail", "kind"),
    [
        pytest.param(429, "tokens per min (TPM): Limit 30000", FailureKind.RATE_LIMITED, id="429"),
        pytest.param(413, "", FailureKind.CONTEXT_OVERFLOW, id="413"),
        pytest.param(401, "invalid x-api-key", FailureKind.AUTH, id="401"),
        pytest.param(403, "forbidden", FailureKind.AUTH, id="403"),
        pytest.param(408, "", FailureKind.TIMEOUT, id="408"),
        pytest.param(500, "", FailureKind.SERVER_ERROR, id="500"),
        pytest.param(529, "Overloaded", FailureKind.SERVER_ERROR, id="529"),
        pytest.param(400, "Invalid value for 'model'", FailureKind.BAD_REQUEST, id="400"),
        pytest.param(404, "model not found", FailureKind.BAD_REQUEST, id="404"),
        pytest.param(422, "unprocessable", FailureKind.BAD_REQUEST, id="422"),
    ],
)
def test_classify_status(status: int, detail: str, kind: FailureKind) -> None:
    assert classify_status(status, detail) is kind


@pytest.mark.parametrize(
    ("detail", "kind"),
    [
        pytest.param("overloaded_error: Overloaded", FailureKind.SERVER_ERROR, id="overloaded"),
        pytest.param("rate_limit_error: slow down", FailureKind.RATE_LIMITED, id="rate"),
        pytest.param("invalid_request_error: prompt is too long", FailureKind.CONTEXT_OVERFLOW),
        pytest.param("authentication_error: bad key", FailureKind.AUTH, id="auth"),
        pytest.param("invalid_request_error: bad", FailureKind.BAD_REQUEST, id="invalid"),
    ],
)
def test_classify_stream_error(detail: str, kind: FailureKind) -> None:
    assert classify_stream_error(detail) is kind


def test_classify_transport() -> None:
    request = httpx.Request("POST", "http://x")
    timeout = classify_transport(httpx.ReadTimeout("t", request=request))
    assert (timeout.kind, timeout.cause) == (FailureKind.TIMEOUT, None)
    connect = classify_transport(httpx.ConnectTimeout("t", request=request))
    assert connect.kind is FailureKind.TIMEOUT
    dropped = classify_transport(httpx.RemoteProtocolError("peer closed", request=request), 200)
    assert (dropped.kind, dropped.cause, dropped.status) == (FailureKind.CONNECTION, None, 200)
    refused = classify_transport(httpx.ConnectError("refused", request=request))
    assert (refused.kind, refused.cause) == (FailureKind.CONNECTION, UNREACHABLE)


@pytest.mark.parametrize(
    ("body", "text"),
    [
        pytest.param(b'{"error": {"message": "m", "type": "t", "code": "c"}}', "c: m", id="openai"),
        pytest.param(
            b'{"type": "error", "error": {"type": "api_error", "message": "m"}}',
            "api_error: m",
            id="anthropic",
        ),
        pytest.param(b'{"error": "model not found"}', "model not found", id="ollama"),
        pytest.param(b'{"object": "error", "message": "m", "type": "t"}', "t: m", id="vllm"),
        pytest.param(b'{"detail": "nope"}', "nope", id="detail"),
        pytest.param(b"<html>Bad Gateway</html>", "<html>Bad Gateway</html>", id="html"),
    ],
)
def test_error_text(body: bytes, text: str) -> None:
    assert error_text(body) == text


def test_error_text_is_redacted_then_shortened() -> None:
    assert len(error_text(b"x" * 5000)) <= 500
    key = "sk-123456-abcdef"
    assert error_text(f"key {key} leaked twice: {key}".encode(), (key,)) == (
        "key [redacted] leaked twice: [redacted]"
    )
    cut = error_text(b"x" * 495 + key.encode(), (key,))
    assert len(cut) == 500 and key[:8] not in cut and cut.endswith("[red…")
    assert error_text(b"text", (None,)) == "text"


@pytest.mark.parametrize(
    ("raw", "arguments", "error"),
    [
        pytest.param('{"path": "a.py"}', {"path": "a.py"}, None, id="json"),
        pytest.param({"path": "a.py"}, {"path": "a.py"}, None, id="object"),
        pytest.param("", {}, None, id="empty"),
        pytest.param(None, {}, None, id="none"),
        pytest.param('{"path": ', {}, "not valid JSON", id="broken"),
        pytest.param('["a.py"]', {}, "must be a JSON object, got list", id="list"),
        pytest.param(42, {}, "must be a JSON object, got int", id="number"),
    ],
)
def test_parse_arguments(raw: object, arguments: dict[str, str], error: str | None) -> None:
    parsed, why = parse_arguments("read_file", raw)
    assert parsed == arguments
    if error is None:
        assert why is None
    else:
        assert why is not None and error in why and "read_file" in why
