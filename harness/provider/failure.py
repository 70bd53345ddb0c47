"""Classifying a failed HTTP attempt: status codes, error bodies and transport errors become a
``FailureKind`` (whose retryability is ``harness.errors.RETRYABLE``), with a message that says
what happened and never contains the API key — not even a piece of it: text from the server
is redacted *before* it is shortened (§6.7).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from harness.errors import ClassifiedFailure, FailureKind
from harness.provider.retry import UNREACHABLE
from harness.redact import clip

if TYPE_CHECKING:  # httpx loads with the HTTP providers, not with the scripted one
    import httpx

# Context-length rejections as OpenAI, Anthropic, OpenRouter, vLLM, llama.cpp, Ollama and
# LM Studio word them. Only consulted for non-429 errors: a 429 "tokens per minute" is a rate
# limit, not an overflow.
_OVERFLOW = re.compile(
    r"context[_ ]length|maximum context|context (?:size|window)|prompt is too long"
    r"|prompt too long|too many tokens|input length|request too large|request_too_large"
    r"|reduce the length|exceed_context_size|exceeds? (?:the )?(?:model'?s? )?(?:max|available)",
    re.IGNORECASE,
)
_MESSAGE_LIMIT = 500
PREVIEW_LIMIT = 200


class AttemptFailed(ClassifiedFailure):
    """One attempt failed; the retry loop decides what to do with it."""

    cause: str | None = None  # a finer key of retry.ATTEMPT_CAPS than ``kind`` (UNREACHABLE)


def is_context_overflow(message: str) -> bool:
    return bool(_OVERFLOW.search(message))


def shorten(text: str, limit: int = _MESSAGE_LIMIT, secrets: Iterable[str | None] = ()) -> str:
    """``text`` on one line, redacted of every registered key (and ``secrets``), then cut."""
    return clip(" ".join(text.split()), limit, secrets)


def error_text(body: bytes, secrets: Iterable[str | None] = ()) -> str:
    """The human part of an error body in any of the wire formats, redacted, then shortened."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data: Any = json.loads(text)
    except ValueError:
        return shorten(text, secrets=secrets)
    parts = _error_parts(data)
    return shorten(": ".join(p for p in parts if p) or text, secrets=secrets)


def _error_parts(data: Any) -> list[str]:
    # OpenAI/Anthropic: {"error": {"type"/"code", "message"}}; Ollama: {"error": "..."};
    # vLLM: {"object": "error", "message", "type"}; some proxies: {"detail": "..."}.
    if not isinstance(data, dict):
        return [str(data)]
    err = data.get("error", data)
    if isinstance(err, str):
        return [err]
    if not isinstance(err, dict):
        return [str(err)]
    code = err.get("code") or err.get("type")
    message = err.get("message") or err.get("detail") or data.get("detail")
    return [str(code) if code else "", str(message) if message else ""]


def classify_status(status: int, detail: str) -> FailureKind:
    """The failure kind of an HTTP error answer."""
    if status == 429:
        return FailureKind.RATE_LIMITED
    if status == 413 or is_context_overflow(detail):
        return FailureKind.CONTEXT_OVERFLOW
    if status in (401, 403):
        return FailureKind.AUTH
    if status == 408:
        return FailureKind.TIMEOUT
    if status >= 500:
        return FailureKind.SERVER_ERROR
    return FailureKind.BAD_REQUEST


def classify_stream_error(detail: str) -> FailureKind:
    """The failure kind of an error event inside a 200 stream (e.g. Anthropic ``overloaded``)."""
    lowered = detail.lower()
    if is_context_overflow(detail):
        return FailureKind.CONTEXT_OVERFLOW
    if "rate" in lowered and "limit" in lowered:
        return FailureKind.RATE_LIMITED
    if "authentication" in lowered or "permission" in lowered:
        return FailureKind.AUTH
    if "invalid_request" in lowered:
        return FailureKind.BAD_REQUEST
    return FailureKind.SERVER_ERROR


def malformed(what: str) -> AttemptFailed:
    """An answer (status 200) that is not what its wire format says it is."""
    return AttemptFailed(FailureKind.MALFORMED, what, status=200)


def reported_error(error: object) -> AttemptFailed:
    """An error the server reported inside a 200 answer or stream (``error``: its JSON)."""
    detail = error_text(json.dumps(error).encode())
    message = f"the server reported an error: {detail}"
    return AttemptFailed(classify_stream_error(detail), message, status=200)


def classify_transport(exc: httpx.TransportError, status: int | None = None) -> AttemptFailed:
    """A transport-level failure: no answer, or an answer cut short. A connection never made
    (DNS failure, connection refused) is a CONNECTION failure whose cause is UNREACHABLE."""
    import httpx  # loaded already: ``exc`` is one of its errors

    detail = shorten(str(exc), PREVIEW_LIMIT)
    if isinstance(exc, httpx.TimeoutException):
        what = {
            httpx.ConnectTimeout: "connecting",
            httpx.ReadTimeout: "waiting for data",
            httpx.WriteTimeout: "sending the request",
            httpx.PoolTimeout: "waiting for a free connection",
        }.get(type(exc), "talking to the server")
        return AttemptFailed(FailureKind.TIMEOUT, f"timed out {what}", status=status)
    if isinstance(exc, httpx.RemoteProtocolError):
        message = f"the server closed the connection early ({detail})"
        return AttemptFailed(FailureKind.CONNECTION, message, status=status)
    if isinstance(exc, httpx.ConnectError):
        unreachable = AttemptFailed(
            FailureKind.CONNECTION, f"cannot connect ({detail})", status=status
        )
        unreachable.cause = UNREACHABLE
        return unreachable
    message = f"connection failed ({type(exc).__name__}: {detail})"
    return AttemptFailed(FailureKind.CONNECTION, message, status=status)


__all__ = [
    "AttemptFailed",
    "classify_status",
    "classify_stream_error",
    "classify_transport",
    "error_text",
    "is_context_overflow",
    "malformed",
    "reported_error",
    "shorten",
]
