"""Benchmark: the live view's latency (issue 22; numbers in docs/MEASUREMENTS.md). A model
token leaves a streaming Chat Completions server on 127.0.0.1 → its ``text`` event
(``harness/runEvent``) arrives at a real LSP client (pytest-lsp) of the real server:
p50/p95 over 300 tokens sent 10 ms apart, against a bare round trip through the same
server in the same session (``harness.cancel`` of no run: pygls's dispatch and the pipes,
nothing of the harness) measured just after. Durations are printed, never asserted;
target: p95 ≤ 20 ms.
"""

from __future__ import annotations

import json
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

from tests.e2e.lsp import (  # noqa: F401 -- pytest fixtures
    HarnessClient,
    initialize_params,
    server_env,
    started_server,
    wait_watching,
)

from .conftest import record

TOKENS = 300
GAP_S = 0.010
ROUND_TRIPS = 300

bare_fixture = started_server("bare")


class _Stream(BaseHTTPRequestHandler):
    """Streams ``TOKENS`` content deltas, one per write, ``GAP_S`` apart, noting when
    each left (after the flush); any later request gets a plain "done"."""

    sent: ClassVar[dict[str, float]] = {}
    served = 0

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        type(self).served += 1
        first = type(self).served == 1
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        words = [f"t{i} " for i in range(TOKENS)] if first else ["done"]
        for word in words:
            self._event({"choices": [{"index": 0, "delta": {"content": word}}]})
            _Stream.sent[word] = time.perf_counter()
            if first:
                time.sleep(GAP_S)
        usage = {"prompt_tokens": 10, "completion_tokens": len(words), "total_tokens": 99}
        self._event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        self._event({"choices": [], "usage": usage})
        self._chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _event(self, data: dict[str, Any]) -> None:
        self._chunk(f"data: {json.dumps(data)}\n\n".encode())

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def test_token_to_text_event_latency(bare: HarnessClient, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stream)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        options = {
            "provider": {"name": "openai", "baseUrl": url, "model": "m"},
            "storePath": str(tmp_path / "s.db"),
        }
        await bare.initialize_session(initialize_params([ws], options))
        await wait_watching(bare)
        started = await bare.command("harness.run", {"goal": "stream"})
        await bare.wait_finished(started["runId"], within_s=120)
        latency = [
            (arrived - _Stream.sent[event["delta"]]) * 1000
            for event, arrived in zip(bare.events, bare.event_times, strict=True)
            if event["kind"] == "text" and event["delta"] in _Stream.sent
        ]
        trips = []
        for _ in range(ROUND_TRIPS):
            began = time.perf_counter()
            await bare.command("harness.cancel", {"runId": 999_999})
            trips.append((time.perf_counter() - began) * 1000)
    finally:
        server.shutdown()
        server.server_close()
    assert len(latency) >= TOKENS, "every token became its own text event"
    p50, p95 = statistics.median(latency), percentile(latency, 95)
    t50, t95 = statistics.median(trips), percentile(trips, 95)
    record(
        "live view",
        f"token at the server → text event at the client: n={len(latency)}, p50 {p50:.1f} ms, "
        f"p95 {p95:.1f} ms, max {max(latency):.1f} ms (target p95 ≤ 20 ms)",
    )
    record(
        "live view",
        f"bare round trip (harness.cancel of no run), same session: p50 {t50:.1f} ms, "
        f"p95 {t95:.1f} ms; ratio p50 {p50 / t50:.2f}×, p95 {p95 / t95:.2f}×",
    )
