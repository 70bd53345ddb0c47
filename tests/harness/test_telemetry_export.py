"""The bounded export (§12): spans past the queue's bound are dropped and counted, never
waited for; a failed export is counted and remembered (redacted), never raised or printed;
shutdown gives up within its bound and counts what it left. Against a real OTLP/HTTP
receiver on 127.0.0.1 (``tests/support/otlp_receiver.py``)."""

from __future__ import annotations

import logging
import time
from urllib.parse import unquote

import pytest

from harness import redact
from harness.telemetry.config import TelemetryConfig
from harness.telemetry.export import Telemetry
from tests.support.otlp_receiver import OtlpReceiver, closed_port


def spans(telemetry: Telemetry, n: int) -> None:
    for i in range(n):
        telemetry.tracer.start_span(f"span {i}").end()


def test_a_hung_collector_drops_past_the_bound_and_shutdown_gives_up_in_time() -> None:
    with OtlpReceiver(hang=True) as hung:
        telemetry = Telemetry.start(TelemetryConfig(f"{hung.url}/v1/traces"), max_queue=4)
        started = time.perf_counter()
        spans(telemetry, 10)
        assert time.perf_counter() - started < 0.5  # ending a span never waits
        stats = telemetry.stats()
        assert stats.ended == 10 and stats.dropped == 6  # the bound: 4 waiting or in flight
        started = time.perf_counter()
        final = telemetry.shutdown(bound_s=0.5)
        assert time.perf_counter() - started < 1.5
        assert final.ended == 10 and final.exported == 0 and final.dropped == 10
        assert telemetry.shutdown() == final  # once is enough


def test_a_closed_port_is_counted_remembered_and_never_printed(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    secret = "otlp-header-secret-0123456789"
    redact.register(secret)
    config = TelemetryConfig(f"http://{secret}@127.0.0.1:{closed_port()}/v1/traces", timeout_s=1)
    with caplog.at_level(logging.INFO, logger="harness.telemetry"):
        telemetry = Telemetry.start(config)
        spans(telemetry, 3)
        final = telemetry.shutdown()
    assert final.ended == 3 and final.exported == 0 and final.dropped == 3
    assert final.endpoint.startswith("http://127.0.0.1:")  # no credentials shown
    captured = capsys.readouterr()
    assert captured.out == captured.err == ""
    assert secret not in caplog.text and secret not in (final.last_error or "")


@pytest.mark.parametrize(
    "query",
    [
        pytest.param("token=t0k", id="short-token"),
        pytest.param("api_key=collector-query-key-8f3a2b1c", id="long-key"),
        pytest.param("a=1&sig=s%2Fg-9d", id="encoded-value"),
    ],
)
def test_a_collector_urls_query_never_reaches_the_log_or_the_status(
    caplog: pytest.LogCaptureFixture, query: str
) -> None:
    """Issue 30, finding 16: the SDK's error text echoes the URL, query and all."""
    secret = query.rpartition("=")[2]
    config = TelemetryConfig(f"http://127.0.0.1:{closed_port()}/v1/traces?{query}", timeout_s=1)
    with caplog.at_level(logging.DEBUG):
        telemetry = Telemetry.start(config)
        spans(telemetry, 2)
        final = telemetry.shutdown()
    assert final.dropped == 2 and final.last_error
    assert "export failed" in caplog.text  # the failure was logged, without the token
    for shown in (caplog.text, final.last_error, str(final.to_json())):
        assert secret not in shown and unquote(secret) not in shown


def test_a_live_collector_gets_every_span_and_the_counts_say_so() -> None:
    with OtlpReceiver() as live:
        telemetry = Telemetry.start(TelemetryConfig(f"{live.url}/v1/traces"))
        spans(telemetry, 25)
        final = telemetry.shutdown()
        assert (final.ended, final.exported, final.dropped) == (25, 25, 0)
        received = live.wait_for(lambda s: len(s) == 25, 5)
    assert received[0].resource["service.name"] == "harness-lsp"
    assert final.to_json() == {
        "endpoint": f"{live.url}/v1/traces",
        "spansEnded": 25,
        "spansExported": 25,
        "spansDropped": 0,
        "lastError": None,
    }
