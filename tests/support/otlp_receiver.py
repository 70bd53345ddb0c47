"""A real OTLP/HTTP trace receiver for tests: an HTTP server on 127.0.0.1, in its own thread,
that decodes each ``POST /v1/traces`` body as an ``ExportTraceServiceRequest``
(``opentelemetry-proto``, protobuf; gzip when the exporter says so) and keeps every span
with its attributes, events and resource decoded to plain Python values.

    with OtlpReceiver() as otlp:
        run the harness with OTEL_EXPORTER_OTLP_ENDPOINT=otlp.url
        spans = otlp.wait_for(lambda spans: any(s.name.startswith("invoke_agent") for s in spans))

``OtlpReceiver(hang=True)`` accepts connections and reads requests but never answers (a
collector that hangs); ``closed_port()`` is a port nothing listens on.
"""

from __future__ import annotations

import gzip
import socket
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue


@dataclass(frozen=True)
class Received:
    """One span as the receiver decoded it."""

    name: str
    kind: int
    trace_id: str
    span_id: str
    parent_span_id: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]]
    status_code: int  # 0 unset, 1 ok, 2 error
    status_message: str
    resource: dict[str, Any]
    scope: str
    schema_url: str

    def texts(self) -> list[str]:
        """Every string this span carries (attribute and event values, name, status)."""
        found = [self.name, self.status_message]
        values: list[Any] = list(self.attributes.values())
        values += [v for _, attrs in self.events for v in attrs.values()]
        values += [name for name, _ in self.events]
        for value in values:
            found += [str(v) for v in value] if isinstance(value, list) else [str(value)]
        return found


def value_of(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which == "array_value":
        return [value_of(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return attributes_of(value.kvlist_value.values)
    if which is None:
        return None
    return getattr(value, which)


def attributes_of(pairs: Any) -> dict[str, Any]:
    return {kv.key: value_of(kv.value) for kv in pairs if isinstance(kv, KeyValue)}


@dataclass
class OtlpReceiver:
    hang: bool = False
    status: int = 200
    spans: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.requests = 0
        self.bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def start(self) -> OtlpReceiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                receiver._receive(self.path, body, dict(self.headers.items()))
                if receiver.hang:
                    receiver._stopping.wait(60)
                    return
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(receiver.status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        self._thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> OtlpReceiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _receive(self, path: str, body: bytes, headers: dict[str, str]) -> None:
        encoding = {k.lower(): v for k, v in headers.items()}.get("content-encoding", "")
        if encoding == "gzip":
            body = gzip.decompress(body)
        elif encoding == "deflate":
            body = zlib.decompress(body)
        decoded = decode(body) if path.rstrip("/").endswith("/v1/traces") else []
        with self._changed:
            self.requests += 1
            self.bodies.append(body)
            self.headers.append(headers)
            self.spans.extend(decoded)
            self._changed.notify_all()

    def wait_for(
        self, ready: Callable[[list[Received]], bool], timeout: float = 20
    ) -> list[Received]:
        """The spans received once ``ready(spans)`` holds (``TimeoutError`` past ``timeout``)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not ready(list(self.spans)):
                left = deadline - time.monotonic()
                if left <= 0:
                    names = [s.name for s in self.spans]
                    raise TimeoutError(f"spans received so far: {names}")
                self._changed.wait(left)
            return list(self.spans)


def decode(body: bytes) -> list[Received]:
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    found: list[Received] = []
    for resource_spans in request.resource_spans:
        resource = attributes_of(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                found.append(
                    Received(
                        name=span.name,
                        kind=span.kind,
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_span_id=span.parent_span_id.hex(),
                        start_ns=span.start_time_unix_nano,
                        end_ns=span.end_time_unix_nano,
                        attributes=attributes_of(span.attributes),
                        events=[(e.name, attributes_of(e.attributes)) for e in span.events],
                        status_code=span.status.code,
                        status_message=span.status.message,
                        resource=resource,
                        scope=scope_spans.scope.name,
                        schema_url=scope_spans.schema_url,
                    )
                )
    return found


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


__all__ = ["OtlpReceiver", "Received", "closed_port", "decode"]
