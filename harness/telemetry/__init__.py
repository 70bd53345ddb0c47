"""Runs exported over OpenTelemetry (§12): ``start_telemetry`` reads the configuration (the
``OTEL_*`` variables, the user config's ``[telemetry]``) and, when an endpoint is set,
starts one process-wide ``Telemetry`` (``export``); ``Telemetry.observer`` gives each run a
``SpanObserver`` (``spans``) that ``open_session`` adds beside the host's own observer.

    telemetry = start_telemetry(os.environ)        # None: export is off
    session = await open_session(contract, Backend(..., telemetry=telemetry), front)
    ...
    telemetry.shutdown()                           # at the process's end: bounded

Nothing of OpenTelemetry is imported unless an endpoint is configured. A bad configuration
is one warning, and the run goes on without export: telemetry never fails a run.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import ConfigError
from harness.policy.loading import default_user_config
from harness.telemetry.config import TelemetryConfig, load_config

if TYPE_CHECKING:
    from harness.telemetry.export import Telemetry

log = logging.getLogger(__name__)


def start_telemetry(
    environ: Mapping[str, str], user_config: Path | None = None
) -> Telemetry | None:
    """The process's export, or None when none is configured (or the configuration is bad:
    a warning says what to fix). ``user_config`` defaults to the user's ``policy.toml``."""
    try:
        config = load_config(environ, user_config or default_user_config())
    except ConfigError as exc:
        log.warning("telemetry is off: %s", exc)
        return None
    if config is None:
        return None
    from harness.telemetry.export import Telemetry

    return Telemetry.start(config)


__all__ = ["TelemetryConfig", "start_telemetry"]
