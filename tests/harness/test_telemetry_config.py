"""Where runs are exported (§12): the standard ``OTEL_*`` variables over the user config's
``[telemetry]`` table, field by field; export off unless an endpoint is set; bad values named;
header values registered as secrets; only the user's own config may say where runs go; and
the observers a run reports to (``fan_out``) each hear every hook."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from harness import redact
from harness.errors import ConfigError
from harness.policy import Policy
from harness.report import HOOKS, RunObserver, fan_out
from harness.telemetry import start_telemetry
from harness.telemetry.config import TelemetryConfig, load_config
from harness.tools.environment import exec_environment

BASE = "OTEL_EXPORTER_OTLP_ENDPOINT"


def user_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("environ", "table", "expected"),
    [
        pytest.param({}, "", None, id="nothing-set-is-off"),
        pytest.param({BASE: "http://c:4318"}, "", "http://c:4318/v1/traces", id="env-base"),
        pytest.param({BASE: "http://c:4318/"}, "", "http://c:4318/v1/traces", id="env-base-slash"),
        pytest.param(
            {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://c/otel/traces", BASE: "http://x"},
            "",
            "https://c/otel/traces",
            id="traces-endpoint-is-whole-and-wins",
        ),
        pytest.param(
            {}, 'endpoint = "http://localhost:6006"', "http://localhost:6006/v1/traces", id="file"
        ),
        pytest.param(
            {BASE: "http://env:4318"},
            'endpoint = "http://file"',
            "http://env:4318/v1/traces",
            id="env-wins",
        ),
        pytest.param({BASE: "http://c", "OTEL_SDK_DISABLED": "true"}, "", None, id="sdk-disabled"),
        pytest.param(
            {BASE: "http://c", "OTEL_TRACES_EXPORTER": "none"}, "", None, id="exporter-none"
        ),
    ],
)
def test_the_endpoint_comes_from_the_environment_then_the_user_config(
    tmp_path: Path, environ: dict[str, str], table: str, expected: str | None
) -> None:
    config = load_config(environ, user_config(tmp_path, f"[telemetry]\n{table}\n"))
    assert (config.endpoint if config else None) == expected


def test_headers_timeout_and_content_field_by_field(tmp_path: Path) -> None:
    path = user_config(
        tmp_path,
        '[telemetry]\nendpoint = "http://c"\ncapture_content = true\ntimeout = 3\n'
        '[telemetry.headers]\nAuthorization = "Bearer file-secret-0123"\nx-team = "core"\n',
    )
    config = load_config({}, path)
    assert config == TelemetryConfig(
        "http://c/v1/traces",
        {"authorization": "Bearer file-secret-0123", "x-team": "core"},
        capture_content=True,
        timeout_s=3.0,
    )
    environ = {
        "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20env-secret-4567,x-a=1",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "false",
        "OTEL_EXPORTER_OTLP_TIMEOUT": "0.5",
    }
    config = load_config(environ, path)
    assert config is not None
    assert config.headers == {
        "authorization": "Bearer env-secret-4567",
        "x-team": "core",
        "x-a": "1",
    }
    assert not config.capture_content and config.timeout_s == 0.5
    # Header values are secrets: never in a log, never in a command's environment.
    assert redact.redact("sent Bearer env-secret-4567") == "sent [redacted]"
    exec_env = exec_environment(
        {"OTEL_EXPORTER_OTLP_HEADERS": environ["OTEL_EXPORTER_OTLP_HEADERS"]}
    )
    assert exec_env == {}
    assert config.describe() == "http://c/v1/traces"


def test_the_described_endpoint_has_no_credentials() -> None:
    config = TelemetryConfig("https://user:pw@collector:4318/v1/traces?token=abc")
    assert config.describe() == "https://collector:4318/v1/traces"


@pytest.mark.parametrize(
    ("environ", "table", "named"),
    [
        pytest.param({BASE: "collector:4318"}, "", BASE, id="not-a-url"),
        pytest.param({}, "endpoint = 4318", "[telemetry].endpoint", id="endpoint-type"),
        pytest.param({}, 'endpoint = "http://c"\nheaders = "x"', "headers", id="headers-type"),
        pytest.param(
            {},
            'endpoint = "http://c"\ncapture_content = "yes"',
            "capture_content",
            id="capture-type",
        ),
        pytest.param({}, 'endpoint = "http://c"\ntimeout = -1', "timeout", id="timeout-range"),
        pytest.param({}, 'endpoint = "http://c"\nendpont = "x"', "endpont", id="unknown-key"),
        pytest.param(
            {BASE: "http://c", "OTEL_EXPORTER_OTLP_HEADERS": "novalue"},
            "",
            "OTEL_EXPORTER_OTLP_HEADERS",
            id="bad-headers",
        ),
    ],
)
def test_a_bad_value_is_named(
    tmp_path: Path, environ: dict[str, str], table: str, named: str
) -> None:
    with pytest.raises(ConfigError, match=named.replace("[", r"\[").replace("]", r"\]")):
        load_config(environ, user_config(tmp_path, f"[telemetry]\n{table}\n"))


def test_a_bad_configuration_is_a_warning_and_no_export(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="harness.telemetry"):
        assert start_telemetry({BASE: "collector:4318"}, tmp_path / "none.toml") is None
    assert "telemetry is off" in caplog.text and BASE in caplog.text
    assert start_telemetry({}, tmp_path / "none.toml") is None


def test_only_the_user_config_says_where_runs_go(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".harness").mkdir(parents=True)
    user = user_config(tmp_path, '[telemetry]\nendpoint = "http://c"\n')
    Policy.load(root, user_config=user)  # the user's table is not a policy table
    (root / ".harness" / "policy.toml").write_text('[telemetry]\nendpoint = "http://evil"\n')
    with pytest.raises(ConfigError, match="cannot send runs anywhere"):
        Policy.load(root, user_config=user)


class Recorder(RunObserver):
    def __init__(self) -> None:
        self.heard: list[str] = []

    def __getattribute__(self, name: str) -> Any:
        if name in HOOKS:
            return lambda *args: object.__getattribute__(self, "heard").append(name)
        return object.__getattribute__(self, name)


def test_fan_out_relays_every_hook_to_each_observer() -> None:
    one, two = Recorder(), Recorder()
    both = fan_out(one, None, two)
    assert "model_asked" in HOOKS and "run_finished" in HOOKS
    for name in HOOKS:
        getattr(both, name)(object(), 1, 2)
    assert one.heard == two.heard == list(HOOKS)
    assert fan_out(one, None) is one
