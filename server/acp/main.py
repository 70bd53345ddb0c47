"""Starting the ACP agent: the flags of ``harness acp`` (declared in ``harness.cli.acp``),
the model's configuration, then the connection on stdio until the client goes. The store
and telemetry (``Services``) are opened once ``initialize`` is answered — what answering
it needs is all that loads before (issue 38: start-up within 0.10 s of CPU of importing
``acp``); a store that cannot be opened fails ``session/new`` saying why. Logs go to
stderr; stdout is the protocol's."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, cast

from acp import Agent

from harness.errors import ConfigError
from harness.provider import ProviderConfig, config_from_env
from harness.redact import RedactingFilter
from harness.run.backend import Backend
from harness.store import default_store_path, local_dir, store_location
from server.acp.agent import HarnessAgent
from server.acp.sessions import SessionBook
from server.acp.wire import serve_stdio

if TYPE_CHECKING:
    import argparse

    from harness.store import Store
    from harness.telemetry.export import Telemetry
    from server.semantic import SemanticPorts

SESSIONS_FILE = "acp-sessions.json"


class Services:
    """The agent's ``Backend``, made once, when first asked (from any thread)."""

    def __init__(self, location: Path | str, provider: ProviderConfig, memory: bool) -> None:
        self.location, self.provider, self.memory = location, provider, memory
        self.ports: SemanticPorts | None = None  # the language servers of §14
        self.store: Store | None = None
        self.telemetry: Telemetry | None = None
        self._backend: Backend | None = None
        self._lock = threading.Lock()

    def __call__(self) -> Backend:
        with self._lock:
            if self._backend is None:
                self._backend = self._open()
            return self._backend

    def _open(self) -> Backend:
        from harness.store import Store
        from harness.telemetry import start_telemetry
        from server.semantic import SemanticPorts

        self.ports = self.ports or SemanticPorts()  # each started when first asked

        self.store = self.store or Store(self.location)  # raises StoreError, said to the client
        self.telemetry = start_telemetry(os.environ)
        return Backend(
            self.store, self.provider, memory=self.memory, environ=dict(os.environ),
            telemetry=self.telemetry, semantic=self.ports.port,
        )  # fmt: skip

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
        if self.telemetry is not None:  # bounded (§12)
            self.telemetry.shutdown()


async def _until_the_client_goes(agent: HarnessAgent, services: Services) -> None:
    """Serve until the client closes our input; then every run still going is cancelled
    (recorded as such), and the process ends once they have stopped. The methods
    ``HarnessAgent`` leaves out (unstable ones: list, fork, resume, modes) are answered
    "method not found" by the package's router; a line over the limit or a message that is
    not an object is answered with an error (``server.acp.wire``)."""
    try:
        await serve_stdio(cast("Agent", agent))  # bounded lines, non-objects answered
    finally:
        agent.cancel_all()
        if services.ports is not None:
            await services.ports.close()  # shut the language servers down cleanly (§14)


def serve(args: argparse.Namespace) -> int:
    """Serve ACP on stdio with the flags of ``harness acp``; 2 for a configuration error."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RedactingFilter())
    logging.basicConfig(
        level=logging.WARNING, handlers=[handler], format="%(levelname)s %(message)s"
    )
    store_path = store_location(args.store) if args.store else default_store_path()
    try:
        provider = config_from_env(
            os.environ, name=args.provider, model=args.model, base_url=args.base_url
        )
    except ConfigError as exc:
        print(f"harness acp: error: {exc}", file=sys.stderr)
        return 2
    services = Services(store_path, provider, memory=not args.no_memory)
    book = SessionBook(local_dir(store_path) / SESSIONS_FILE)
    listed = args.models if args.models is not None else os.environ.get("HARNESS_MODELS", "")
    models = [provider.effective_model, *filter(None, (m.strip() for m in listed.split(",")))]
    agent = HarnessAgent(services, book, models)
    try:
        asyncio.run(_until_the_client_goes(agent, services))
    finally:
        services.close()
    return 0
