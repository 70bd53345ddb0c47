"""A hostile collector (issue 30, finding 10; §12): it answers an export with a 500 MB body,
streamed until the exporter closes the connection. The exporter keeps at most a few KB of
any answer: the process's peak memory grows by far less than the body, the server sees its
connection closed long before it has sent it all, and shutdown is as quick as ever. A real
HTTP server on 127.0.0.1 (a socket in a thread), the real exporter."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

from harness.telemetry.config import TelemetryConfig
from harness.telemetry.export import Telemetry

BODY = 500 * 1024 * 1024
BLOCK = b"\x0a" * (1 << 20)


class HostileCollector:
    """Answers each request with ``200`` and a ``BODY``-byte body, sent until the client
    closes; ``sent`` counts what it got out."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.sent = 0
        self.answered = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            head = b""
            while b"\r\n\r\n" not in head:
                head += conn.recv(65536)
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            body = head.split(b"\r\n\r\n", 1)[1]
            while len(body) < length:
                body += conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\n"
                + f"Content-Length: {BODY}\r\n\r\n".encode()
            )
            try:
                while self.sent < BODY:
                    conn.sendall(BLOCK)
                    self.sent += len(BLOCK)
            except OSError:  # the exporter closed the connection: what we wanted
                pass
        self.answered.set()

    def close(self) -> None:
        self.listener.close()


def peak_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_a_collector_answering_500_mb_costs_a_few_kb() -> None:
    hostile = HostileCollector()
    try:
        before = peak_kib()
        telemetry = Telemetry.start(TelemetryConfig(f"{hostile.url}/v1/traces", timeout_s=5))
        telemetry.tracer.start_span("one").end()
        started = time.perf_counter()
        final = telemetry.shutdown(bound_s=10)
        took = time.perf_counter() - started
        assert hostile.answered.wait(30)
        grew_mib = (peak_kib() - before) / 1024
        print(f"peak grew {grew_mib:.1f} MiB; the server sent {hostile.sent >> 20} MiB")
        assert final.ended == 1
        assert grew_mib < 50, grew_mib
        assert hostile.sent < BODY // 4  # the exporter hung up long before the end
        assert took < 5, took
    finally:
        hostile.close()
