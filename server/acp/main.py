"""Starting the ACP agent: the flags of ``harness acp`` (declared in ``harness.cli.acp``),
the store, the model's configuration, then the connection on stdio until the client goes.
Logs go to stderr; stdout is the protocol's."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from typing import cast

from acp import Agent

from harness.errors import ConfigError, StoreError
from harness.provider import config_from_env
from harness.redact import RedactingFilter
from harness.store import Store, default_store_path, local_dir, store_location
from harness.telemetry import start_telemetry
from server.acp.agent import HarnessAgent
from server.acp.sessions import SessionBook
from server.acp.wire import serve_stdio
from server.conversation import Backend
from server.semantic import SemanticPorts

SESSIONS_FILE = "acp-sessions.json"


async def _until_the_client_goes(agent: HarnessAgent, ports: SemanticPorts) -> None:
    """Serve until the client closes our input; then every run still going is cancelled
    (recorded as such), and the process ends once they have stopped. The methods
    ``HarnessAgent`` leaves out (unstable ones: list, fork, resume, modes) are answered
    "method not found" by the package's router; a line over the limit or a message that is
    not an object is answered with an error (``server.acp.wire``)."""
    try:
        await serve_stdio(cast("Agent", agent))  # bounded lines, non-objects answered
    finally:
        agent.cancel_all()
        await ports.close()  # shut the language servers down cleanly (§14)


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
        store = Store(store_path)
    except (ConfigError, StoreError) as exc:
        print(f"harness acp: error: {exc}", file=sys.stderr)
        return 2
    telemetry = start_telemetry(os.environ)
    ports = SemanticPorts()  # the language servers of §14, started when first asked
    backend = Backend(
        store, provider, memory=not args.no_memory, environ=dict(os.environ),
        telemetry=telemetry, semantic=ports,
    )  # fmt: skip
    agent = HarnessAgent(backend, SessionBook(local_dir(store_path) / SESSIONS_FILE))
    try:
        asyncio.run(_until_the_client_goes(agent, ports))
    finally:
        store.close()
        if telemetry is not None:  # bounded (§12)
            telemetry.shutdown()
    return 0
