"""Whether and where runs are exported (§12): the standard ``OTEL_*`` environment variables,
then the ``[telemetry]`` table of the user config (``<user config dir>/harness/policy.toml``,
beside ``trusted``), read into one ``TelemetryConfig``.

    [telemetry]
    endpoint = "http://localhost:6006"      # the OTLP/HTTP base URL (/v1/traces is added)
    headers = { authorization = "Bearer …" } # sent with every export (never logged)
    capture_content = false                  # prompts, words, tool arguments and results

A variable wins over the file, field by field: ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (the
whole URL) or ``OTEL_EXPORTER_OTLP_ENDPOINT`` (a base), ``OTEL_EXPORTER_OTLP_[TRACES_]HEADERS``,
``OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT``, ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``;
``OTEL_SDK_DISABLED=true`` or ``OTEL_TRACES_EXPORTER=none`` turn export off. The rest
(``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_BSP_*``, compression,
certificates) the SDK reads itself.

Only the user's own config is read: a repository's ``.harness/policy.toml`` cannot send the
user's runs anywhere. Header values are registered with ``harness.redact`` at once.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from harness import redact
from harness.errors import ConfigError
from harness.policy.loading import TELEMETRY_KEY
from harness.policy.source import read_policy_file

TRACES_PATH = "v1/traces"
DEFAULT_TIMEOUT_S = 5.0  # one export request; the SDK's own default is 10 s
_FIELDS = frozenset({"endpoint", "headers", "capture_content", "timeout"})
_TRUE = frozenset({"true", "1", "yes", "on"})


@dataclass(frozen=True)
class TelemetryConfig:
    """Where spans go (``endpoint``: the full traces URL), with which headers, how long one
    export may take, and whether content (prompts, words, tool arguments and results) is
    attached."""

    endpoint: str
    headers: Mapping[str, str] = field(default_factory=dict)
    capture_content: bool = False
    timeout_s: float = DEFAULT_TIMEOUT_S

    def credentials(self) -> tuple[str, ...]:
        """What of the endpoint and headers is a credential: the URL's user part and its
        query (whole and each value, decoded or not), every header value — never logged."""
        parts = urlsplit(self.endpoint)
        found = [parts.username or "", parts.password or "", parts.query]
        for pair in filter(None, parts.query.split("&")):
            value = pair.partition("=")[2]
            found += [value, unquote(value)]
        found += self.headers.values()
        return tuple(sorted({f for f in found if f}, key=len, reverse=True))

    def describe(self) -> str:
        """The endpoint without credentials or query, for logs and ``harness.status``."""
        parts = urlsplit(self.endpoint)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{host}{port}{parts.path}"


def load_config(environ: Mapping[str, str], user_config: Path | None) -> TelemetryConfig | None:
    """The telemetry configuration, or None when export is off (no endpoint anywhere, or
    disabled). ``ConfigError`` names the bad variable or field."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() in _TRUE:
        return None
    if environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return None
    table = _user_table(user_config) if user_config is not None else {}
    endpoint = _endpoint(environ, table)
    if endpoint is None:
        return None
    headers = {**_table_headers(table), **_env_headers(environ)}
    for value in headers.values():
        redact.register(value)
    capture = _capture(environ, table)
    return TelemetryConfig(endpoint, headers, capture, _timeout(environ, table))


def _user_table(path: Path) -> dict[str, Any]:
    raw = read_policy_file(path, "user config")
    if raw is None:
        return {}
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"user config {path} is not valid TOML: {exc}") from exc
    table = data.get(TELEMETRY_KEY, {})
    where = f"user config {path}: [{TELEMETRY_KEY}]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = set(table) - _FIELDS
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {sorted(unknown)[0]!r}; expected {sorted(_FIELDS)}"
        )
    return {**table, "_where": where}


def _endpoint(environ: Mapping[str, str], table: Mapping[str, Any]) -> str | None:
    whole = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if whole:
        return _url(whole, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    base = environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    source = "OTEL_EXPORTER_OTLP_ENDPOINT"
    if not base and "endpoint" in table:
        base, source = table["endpoint"], f"{table['_where']}.endpoint"
        if not isinstance(base, str) or not base.strip():
            raise ConfigError(f"{source} must be a URL such as http://localhost:4318")
    if not base:
        return None
    base = _url(base.strip(), source)
    return base if base.endswith(TRACES_PATH) else f"{base.rstrip('/')}/{TRACES_PATH}"


def _url(value: str, source: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{source} must be an http(s) URL such as http://localhost:4318")
    return value


def _env_headers(environ: Mapping[str, str]) -> dict[str, str]:
    """``key=value,key2=value2`` (values URL-encoded), the traces variable over the other."""
    found: dict[str, str] = {}
    for name in ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"):
        for pair in filter(None, (p.strip() for p in environ.get(name, "").split(","))):
            key, sep, value = pair.partition("=")
            if not sep or not key.strip():
                raise ConfigError(f"{name}: expected key=value pairs separated by commas")
            found[unquote(key.strip()).lower()] = unquote(value.strip())
    return found


def _table_headers(table: Mapping[str, Any]) -> dict[str, str]:
    headers = table.get("headers", {})
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise ConfigError(f"{table['_where']}.headers must be a table of strings")
    return {k.lower(): v for k, v in headers.items()}


def _capture(environ: Mapping[str, str], table: Mapping[str, Any]) -> bool:
    given = environ.get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "").strip()
    if given:
        return given.lower() in _TRUE
    value = table.get("capture_content", False)
    if not isinstance(value, bool):
        raise ConfigError(f"{table['_where']}.capture_content must be true or false")
    return value


def _timeout(environ: Mapping[str, str], table: Mapping[str, Any]) -> float:
    for name in ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"):
        given = environ.get(name, "").strip()
        if given:
            try:
                seconds = float(given)
            except ValueError:
                raise ConfigError(f"{name} must be a number of seconds, got {given!r}") from None
            return _positive(seconds, name)
    value = table.get("timeout", DEFAULT_TIMEOUT_S)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{table['_where']}.timeout must be a number of seconds")
    return _positive(float(value), f"{table.get('_where')}.timeout")


def _positive(seconds: float, source: str) -> float:
    if not 0 < seconds <= 300:
        raise ConfigError(f"{source} must be between 0 and 300 seconds, got {seconds}")
    return seconds


__all__ = ["TELEMETRY_KEY", "TelemetryConfig", "load_config"]
