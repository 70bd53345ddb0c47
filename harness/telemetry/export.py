"""Sending spans without ever holding a run up (§12): the SDK's ``BatchSpanProcessor`` and
OTLP/HTTP (protobuf) exporter on their own thread, behind a gate that bounds what waits and
counts every span that is not delivered.

    span ends ──▶ _Gate ──(at most max_queue waiting or in flight, else dropped)──▶
                  BatchSpanProcessor ──(worker thread, batches)──▶ _Counting ──▶ OTLPSpanExporter

A span's end costs the run an append to a deque. An export that fails (a closed port, a
collector that hangs past the export timeout, a 4xx) drops its batch: counted, and the
first failure logged once at INFO — never on the terminal, never raised. ``shutdown``
flushes within a bound and gives up on what is left (counted as dropped): a dead collector
delays a process's exit by at most ``SHUTDOWN_BOUND_S``.

The SDK's own loggers (``opentelemetry.*``) are taken off the root logger, so an export
failure is never a warning on the user's terminal; what they say is kept as the last error.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import OTELResourceDetector, Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.semconv.schemas import Schemas
from opentelemetry.trace import Tracer

from harness import __version__
from harness.pricing import Pricer
from harness.redact import redact, register
from harness.telemetry.config import TelemetryConfig
from harness.telemetry.session import BoundedSession
from harness.telemetry.spans import SpanObserver

log = logging.getLogger(__name__)

SERVICE_NAME = "harness-lsp"
SCOPE_NAME = "harness"
MAX_QUEUE = 2048  # spans waiting or in flight; past that a span is dropped, not waited for
BATCH_SIZE = 512
SCHEDULE_DELAY_MS = 1000
SHUTDOWN_BOUND_S = 1.0
FAILING_BOUND_S = 0.2


@dataclass(frozen=True)
class ExportStats:
    """What happened to the spans so far (``harness.status``'s ``telemetry``)."""

    endpoint: str
    ended: int
    exported: int
    dropped: int
    last_error: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "endpoint": self.endpoint,
            "spansEnded": self.ended,
            "spansExported": self.exported,
            "spansDropped": self.dropped,
            "lastError": self.last_error,
        }


class _Tally:
    """The counters the gate, the exporter and the log handler share (any thread).
    ``credentials`` are the collector's (its URL's query and user part, its headers): an
    error text echoing the URL is cleaned of them before it is kept or logged (§12)."""

    def __init__(self, credentials: Sequence[str] = ()) -> None:
        self.credentials = tuple(credentials)
        self.lock = threading.Lock()
        self.ended = self.passed = self.exported = self.failed = self.full = 0
        self.last_error: str | None = None
        self.failing = False  # the last export failed (a dead or hung collector)

    def failure(self, message: str) -> None:
        """An export failed or is failing (the SDK's retries say so before they give up)."""
        said = redact(_without_queries(_without(message, self.credentials)))[:300]
        with self.lock:
            first, self.last_error = self.last_error is None, said
            self.failing = True
        if first:
            log.info("telemetry: export failed (spans are dropped, runs go on): %s", said)


class _Gate(SpanProcessor):
    """A span processor that bounds the spans waiting for export (``MAX_QUEUE``) before the
    batch processor sees them, so the count of dropped spans is exact."""

    def __init__(self, inner: SpanProcessor, tally: _Tally, max_queue: int) -> None:
        self.inner, self.tally, self.max_queue = inner, tally, max_queue

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        return None

    def on_end(self, span: ReadableSpan) -> None:
        t = self.tally
        with t.lock:
            t.ended += 1
            if t.passed - t.exported - t.failed >= self.max_queue:
                t.full += 1
                return
            t.passed += 1
        self.inner.on_end(span)

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return bool(self.inner.force_flush(timeout_millis))


class _Counting(SpanExporter):
    """The OTLP exporter, counting what it delivered and what it failed to."""

    def __init__(self, inner: SpanExporter, tally: _Tally) -> None:
        self.inner, self.tally = inner, tally

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception as exc:  # never out of the worker thread
            self.tally.failure(f"{type(exc).__name__}: {exc}")
            result = SpanExportResult.FAILURE
        with self.tally.lock:
            self.tally.failing = result is not SpanExportResult.SUCCESS
            if result is SpanExportResult.SUCCESS:
                self.tally.exported += len(spans)
            else:
                self.tally.failed += len(spans)
        if result is not SpanExportResult.SUCCESS:
            self.tally.failure(self.tally.last_error or "the collector did not accept the batch")
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class _SdkLog(logging.Handler):
    """What the SDK's loggers say, kept as the last error instead of printed."""

    def __init__(self, tally: _Tally) -> None:
        super().__init__(logging.WARNING)
        self.tally = tally

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.tally.failure(record.getMessage())
        except Exception:  # a log handler never raises
            return


class Telemetry:
    """One process's export: a tracer provider with the harness's resource, the bounded
    batch export, and its counters. Build with ``Telemetry.start(config)``; call
    ``shutdown`` once at the process's (or server's) end."""

    def __init__(self, config: TelemetryConfig, provider: TracerProvider, tally: _Tally) -> None:
        self.config = config
        self.provider = provider
        self.tracer: Tracer = provider.get_tracer(SCOPE_NAME, __version__, schema_url=_schema())
        self._tally = tally
        self._closed = False

    @classmethod
    def start(cls, config: TelemetryConfig, *, max_queue: int = MAX_QUEUE) -> Telemetry:
        tally = _Tally(config.credentials())
        for credential in tally.credentials:  # redacted in every log, trace and child env
            register(credential)
        _quiet_sdk_loggers(tally)
        exporter = OTLPSpanExporter(
            endpoint=config.endpoint,
            headers=dict(config.headers),
            timeout=config.timeout_s,
            session=BoundedSession(),  # a hostile collector's answer costs a few KB
        )
        batch = BatchSpanProcessor(
            _Counting(exporter, tally),
            max_queue_size=max_queue + BATCH_SIZE,  # never reached: the gate bounds first
            schedule_delay_millis=SCHEDULE_DELAY_MS,
            max_export_batch_size=BATCH_SIZE,
        )
        ours = Resource({"service.name": SERVICE_NAME, "service.version": __version__})
        resource = ours.merge(OTELResourceDetector().detect())  # OTEL_SERVICE_NAME etc. win
        provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        provider.add_span_processor(_Gate(batch, tally, max_queue))
        log.info("telemetry: exporting runs to %s", config.describe())
        return cls(config, provider, tally)

    def observer(self, provider: str, model: str, pricer: Pricer | None = None) -> SpanObserver:
        """The spans of one run, to add beside the host's observer."""
        return SpanObserver(
            self.tracer,
            provider=provider,
            model=model,
            pricer=pricer,
            capture_content=self.config.capture_content,
        )

    def stats(self) -> ExportStats:
        """While running, the spans lost for good (queue full, export failed); after
        ``shutdown``, every span not exported."""
        t = self._tally
        with t.lock:
            dropped = t.ended - t.exported if self._closed else t.full + t.failed
            return ExportStats(self.config.describe(), t.ended, t.exported, dropped, t.last_error)

    def shutdown(self, bound_s: float = SHUTDOWN_BOUND_S) -> ExportStats:
        """Flush what waits, within ``bound_s`` — at once when the last export failed (the
        collector is down: what waits would be dropped anyway); what is left then is dropped
        (counted). Never raises, never waits longer; once is enough."""
        if not self._closed:
            self._closed = True
            if self._tally.failing:
                bound_s = min(bound_s, FAILING_BOUND_S)
            done = threading.Thread(
                target=self._shut, name="harness-telemetry-shutdown", daemon=True
            )
            done.start()
            done.join(bound_s)
        stats = self.stats()
        if stats.dropped:
            log.info(
                "telemetry: %d of %d spans exported to %s, %d dropped%s",
                stats.exported,
                stats.ended,
                stats.endpoint,
                stats.dropped,
                f" ({stats.last_error})" if stats.last_error else "",
            )
        return stats

    def _shut(self) -> None:
        try:
            self.provider.shutdown()
        except Exception as exc:
            self._tally.failure(f"shutdown: {type(exc).__name__}: {exc}")


_QUERY = re.compile(r"(?P<path>/[^\s?'\"]*)\?[^\s'\"()]*")


def _without(text: str, credentials: Sequence[str]) -> str:
    for secret in credentials:  # longest first
        text = text.replace(secret, "***")
    return text


def _without_queries(text: str) -> str:
    """``text`` with every URL path's ``?query`` masked (a collector's token may be one)."""
    return _QUERY.sub(r"\g<path>?***", text)


def _quiet_sdk_loggers(tally: _Tally) -> None:
    sdk = logging.getLogger("opentelemetry")
    sdk.propagate = False
    sdk.handlers = [_SdkLog(tally)]


def _schema() -> str:
    """The newest semantic-conventions schema the installed package knows."""
    return max((s.value for s in Schemas), key=_version_key)


def _version_key(url: str) -> tuple[int, ...]:
    return tuple(int(p) for p in url.rsplit("/", 1)[-1].split(".") if p.isdigit())


__all__ = ["SERVICE_NAME", "ExportStats", "Telemetry"]
