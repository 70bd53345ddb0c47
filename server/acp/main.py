"""Starting the ACP agent: the flags of ``harness acp`` (declared in ``harness.cli.acp``),
the store, the model's configuration, then the connection on stdio until the client goes.
Logs go to stderr; stdout is the protocol's."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Sequence
from typing import cast

from acp import Agent, run_agent

from harness.cli.acp import parser
from harness.errors import ConfigError, StoreError
from harness.provider import config_from_env
from harness.redact import RedactingFilter
from harness.store import Store, default_store_path, local_dir, store_location
from server.acp.agent import HarnessAgent
from server.acp.sessions import SessionBook
from server.conversation import Backend

SESSIONS_FILE = "acp-sessions.json"


def main(argv: Sequence[str]) -> int:
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RedactingFilter())
    logging.basicConfig(
        level=logging.WARNING, handlers=[handler], format="%(levelname)s %(message)s"
    )
    args = parser().parse_args(list(argv))
    store_path = store_location(args.store) if args.store else default_store_path()
    try:
        provider = config_from_env(
            os.environ, name=args.provider, model=args.model, base_url=args.base_url
        )
        store = Store(store_path)
    except (ConfigError, StoreError) as exc:
        print(f"harness acp: error: {exc}", file=sys.stderr)
        return 2
    backend = Backend(store, provider, memory=not args.no_memory, environ=dict(os.environ))
    agent = HarnessAgent(backend, SessionBook(local_dir(store_path) / SESSIONS_FILE))
    try:
        # The methods it leaves out (unstable ones: list, fork, resume, modes) are answered
        # "method not found" by the package's router.
        asyncio.run(run_agent(cast("Agent", agent)))
    finally:
        store.close()
    return 0
