"""The HTTP provider engine shared by the wire formats: one ``httpx.AsyncClient`` per provider
(per run), timeouts and an overall deadline per attempt, answers bounded in size (streamed or
whole), streaming over SSE, retries with backoff, and one ``Attempt`` reported for every try —
success, failure or cancellation.

A wire format (``openai.py``, ``anthropic.py``) subclasses ``HttpProvider`` and supplies the
path, headers, request body, a whole-answer parser and a stream decoder.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

import httpx
from httpx_sse import EventSource, ServerSentEvent, SSEError

from harness import __version__
from harness.errors import RETRYABLE, ContextOverflowError, FailureKind, ProviderError
from harness.provider.config import MAX_ANSWER_BYTES, ProviderConfig
from harness.provider.failure import (
    PREVIEW_LIMIT,
    AttemptFailed,
    classify_status,
    classify_transport,
    error_text,
    shorten,
)
from harness.provider.retry import AttemptBudget, backoff_delay, parse_retry_after
from harness.provider.wire import ReplyBuilder, TextSink, text_sink
from harness.redact import redact, register
from harness.types import Attempt, AttemptSink, Reply, Request

Sleep = Callable[[float], Awaitable[None]]

# Errors a parser may raise on an answer of the wrong shape: a malformed answer, not a crash.
_SHAPE_ERRORS = (
    KeyError,
    TypeError,
    ValueError,
    AttributeError,
    IndexError,
    RecursionError,
    SSEError,
)

_HINTS: dict[FailureKind, str] = {
    FailureKind.RATE_LIMITED: "wait a little and run again, or use a higher rate limit",
    FailureKind.SERVER_ERROR: "the provider is failing; try again later",
    FailureKind.TIMEOUT: "the server did not answer in time; check it or raise the timeouts",
    FailureKind.CONNECTION: "check the base URL and that the server is reachable",
    FailureKind.BAD_REQUEST: "check the model name and the base URL",
    FailureKind.MALFORMED: "the server's answer was not a valid reply for this wire format",
}


class StreamDecoder(Protocol):
    """Turns a wire format's SSE events into a ``ReplyBuilder``."""

    builder: ReplyBuilder
    done: bool  # the stream's own end marker arrived ([DONE], message_stop)

    def feed(self, event: ServerSentEvent) -> None: ...

    def finish(self) -> None:
        """Raise ``AttemptFailed`` when the stream ended without a complete reply."""


@dataclass
class _Probe:
    """What is known about an attempt so far, kept for the ``Attempt`` record on failure."""

    started: float
    status: int | None = None
    ttft_ms: float | None = None

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000


class HttpProvider:
    """A provider over HTTP. Subclasses set ``path`` and implement the wire hooks."""

    path: str = ""

    def __init__(
        self,
        config: ProviderConfig,
        api_key: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.name = config.name
        self.model = config.effective_model
        self.config = config
        self._secret = api_key
        register(api_key)  # redacted from every text that leaves the process from now on
        self._sleep = sleep
        self._rng = rng
        t = config.timeouts
        self._client = httpx.AsyncClient(
            base_url=config.effective_base_url,
            headers={"user-agent": f"harness-lsp/{__version__}", **self.headers(api_key)},
            timeout=httpx.Timeout(connect=t.connect, read=t.read, write=t.read, pool=t.connect),
            transport=transport,
            limits=httpx.Limits(max_connections=8, max_keepalive_connections=4),
        )

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} name={self.name} model={self.model} "
            f"base_url={self.config.effective_base_url}>"
        )

    # -- wire hooks ------------------------------------------------------------------------

    def headers(self, api_key: str | None) -> dict[str, str]:
        raise NotImplementedError

    def body(self, request: Request, stream: bool) -> dict[str, Any]:
        raise NotImplementedError

    def parse(self, data: Any, builder: ReplyBuilder) -> None:
        """Fill ``builder`` from a whole (non-streamed) answer; ``AttemptFailed`` if malformed."""
        raise NotImplementedError

    def decoder(self) -> StreamDecoder:
        raise NotImplementedError

    # -- the call --------------------------------------------------------------------------

    async def complete(self, request: Request, on_attempt: AttemptSink) -> Reply:
        body = self.body(request, self.config.stream)
        budget = AttemptBudget(self.config.retry)
        words = text_sink(on_attempt)  # the model's words as they arrive, if it listens
        number = 0
        while True:
            number += 1
            probe = _Probe(started=time.perf_counter())
            try:
                builder = await self._attempt(body, probe, words)
                reply = builder.build(request, self.model)
            except AttemptFailed as failed:
                limit = budget.after_failure(number, failed.kind, failed.cause)
                delay = None
                if limit > number:
                    delay = backoff_delay(budget.policy, number, failed.retry_after, rng=self._rng)
                message = redact(failed.message, (self._secret,))
                note = f"; retrying in {delay:.1f} s" if delay is not None else ""
                attempt = self._failed(
                    number, probe, failed, message + note, retry_in_s=delay, max_attempts=limit
                )
                on_attempt(attempt)
                if delay is None:
                    raise self._give_up(failed, message, number) from None
                await self._sleep(delay)
                continue
            except asyncio.CancelledError:
                cancelled = AttemptFailed(FailureKind.CANCELLED, "cancelled")
                on_attempt(self._failed(number, probe, cancelled, "cancelled by the caller"))
                raise
            on_attempt(self._succeeded(number, probe, reply))
            return reply

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _attempt(
        self, body: dict[str, Any], probe: _Probe, words: TextSink | None = None
    ) -> ReplyBuilder:
        deadline = self.config.timeouts.total
        try:
            async with asyncio.timeout(deadline):
                if body.get("stream"):
                    return await self._streamed(body, probe, words)
                return await self._whole(body, probe)
        except TimeoutError:
            raise AttemptFailed(
                FailureKind.TIMEOUT,
                f"no complete answer within the {deadline:g} s deadline",
                status=probe.status,
            ) from None
        except httpx.TransportError as exc:
            raise classify_transport(exc, probe.status) from None
        except _SHAPE_ERRORS as exc:
            detail = shorten(str(exc), PREVIEW_LIMIT, (self._secret,))
            raise AttemptFailed(
                FailureKind.MALFORMED,
                f"the answer is malformed ({type(exc).__name__}: {detail})",
                status=probe.status,
            ) from None

    async def _whole(self, body: dict[str, Any], probe: _Probe) -> ReplyBuilder:
        async with self._client.stream("POST", self.path, json=body) as response:
            probe.status = response.status_code  # known before the body, which may be cut
            if response.status_code >= 400:
                raise await self._http_failure(response)
            return self._parse_whole(await self._read(response))

    async def _read(self, response: httpx.Response) -> bytes:
        """The whole body, or a MALFORMED failure once it passes the size limit."""
        return b"".join([chunk async for chunk in self._capped(response)])

    def _capped(self, response: httpx.Response) -> AsyncIterator[bytes]:
        return _capped(response, self.config.max_answer_bytes)

    async def _http_failure(self, response: httpx.Response) -> AttemptFailed:
        try:
            detail = error_text(await self._read(response), (self._secret,))
        except AttemptFailed:  # nothing of a body this long is shown: it could end in a key
            detail = f"(an error body over {self.config.max_answer_bytes:,} bytes, not shown)"
        status = response.status_code
        kind = classify_status(status, detail)
        reason = response.reason_phrase or ""
        message = f"HTTP {status} {reason}".rstrip() + (f": {detail}" if detail else "")
        retry_after = parse_retry_after(response.headers) if RETRYABLE[kind] else None
        return AttemptFailed(kind, message, status=status, retry_after=retry_after)

    def _parse_whole(self, content: bytes) -> ReplyBuilder:
        try:
            data = json.loads(content)
        except ValueError:
            preview = shorten(content.decode("utf-8", "replace"), PREVIEW_LIMIT, (self._secret,))
            raise AttemptFailed(
                FailureKind.MALFORMED, f"the answer is not JSON: {preview!r}", status=200
            ) from None
        builder = ReplyBuilder()
        self.parse(data, builder)
        return builder

    async def _streamed(
        self, body: dict[str, Any], probe: _Probe, words: TextSink | None
    ) -> ReplyBuilder:
        headers = {"accept": "text/event-stream", "cache-control": "no-store"}
        async with self._client.stream("POST", self.path, json=body, headers=headers) as response:
            probe.status = response.status_code
            if response.status_code >= 400:
                raise await self._http_failure(response)
            if "text/event-stream" not in response.headers.get("content-type", ""):
                # the server ignored "stream": answer as a whole
                return self._parse_whole(await self._read(response))
            return await self.read_stream(response, probe, words)

    async def read_stream(
        self, response: httpx.Response, probe: _Probe | None = None, words: TextSink | None = None
    ) -> ReplyBuilder:
        """Decode an SSE answer into a reply, its bytes capped at ``max_answer_bytes``;
        ``words`` hears each piece of the model's words as it is decoded."""
        decoder = self.decoder()
        decoder.builder.on_text = words
        # SSE is UTF-8 by definition; the capped bytes are re-read as a bare event stream.
        capped = httpx.Response(200, headers=_SSE_HEADERS, stream=_Stream(self._capped(response)))
        try:
            async for event in EventSource(capped).aiter_sse():
                if decoder.done:
                    continue  # drain to the end so the connection can be reused
                decoder.feed(event)
                if probe and probe.ttft_ms is None and decoder.builder.has_output:
                    probe.ttft_ms = probe.elapsed_ms()
        except (httpx.TransportError, AttemptFailed):
            if not decoder.done:  # what comes after the end marker does not matter
                raise
        decoder.finish()
        return decoder.builder

    # -- reporting -------------------------------------------------------------------------

    def _succeeded(self, number: int, probe: _Probe, reply: Reply) -> Attempt:
        measured = self._measured(number, probe, reply.model)
        return replace(measured, usage=reply.usage, finish_reason=reply.finish_reason)

    def _failed(
        self,
        number: int,
        probe: _Probe,
        failed: AttemptFailed,
        message: str,
        *,
        retry_in_s: float | None = None,
        max_attempts: int | None = None,
    ) -> Attempt:
        return replace(
            self._measured(number, probe, self.model),
            status=failed.status if failed.status is not None else probe.status,
            failure=failed.kind.value,
            error=message,
            retry_in_s=retry_in_s,
            max_attempts=max_attempts or number,
        )

    def _measured(self, number: int, probe: _Probe, model: str) -> Attempt:
        """Attempt ``number`` as ``probe`` measured it: its time, first token and status."""
        return Attempt(
            provider=self.name,
            model=model,
            attempt=number,
            latency_ms=probe.elapsed_ms(),
            ttft_ms=probe.ttft_ms,
            status=probe.status,
            max_attempts=number,
        )

    def _give_up(self, failed: AttemptFailed, message: str, attempts: int) -> ProviderError:
        where = f"{self.name} ({self.model} at {self.config.effective_base_url})"
        if failed.kind is FailureKind.CONTEXT_OVERFLOW:
            return ContextOverflowError(
                f"{where} rejected the request as longer than the model's context window: "
                f"{message}",
                status=failed.status,
            )
        tries = f"after {attempts} attempt{'s' if attempts > 1 else ''}"
        if failed.kind is FailureKind.AUTH:
            hint = f"check {' or '.join(self.config.key_variables())}"
        else:
            hint = _HINTS.get(failed.kind, "")
        text = f"{where} failed {tries}: {message}" + (f" — {hint}" if hint else "")
        return ProviderError(
            failed.kind,
            redact(text, (self._secret,)),
            status=failed.status,
            retry_after=failed.retry_after,
        )


_SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8"}


async def _capped(response: httpx.Response, limit: int) -> AsyncIterator[bytes]:
    """The body's bytes as received (after any content decoding), failing as MALFORMED once
    they pass ``limit``: a stream that never ends, or one line that never ends, cannot grow
    memory without bound (§6.1)."""
    received = 0
    async for chunk in response.aiter_bytes():
        received += len(chunk)
        if received > limit:
            raise AttemptFailed(
                FailureKind.MALFORMED,
                f"the answer passed {limit:,} bytes without ending (the limit for one answer)",
                status=response.status_code,
            )
        yield chunk


class _Stream(httpx.AsyncByteStream):
    """An async iterator of bytes as the body of an ``httpx.Response``."""

    def __init__(self, chunks: AsyncIterator[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._chunks:
            yield chunk


__all__ = ["MAX_ANSWER_BYTES", "HttpProvider", "Sleep", "StreamDecoder"]
