"""harness-lsp: the language server hosting the harness (§7). An adapter from LSP to
``harness``: it holds no agent logic.

``main()`` is the ``harness-lsp`` console script (stdio; logs on stderr, never stdout);
``create_server()`` builds a server without starting it. Nothing is built at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.app import HarnessServer


def create_server() -> HarnessServer:
    from server.app import create_server as create

    return create()


def main() -> int:
    """Serve one client over stdin/stdout until it exits, then end the process with the
    LSP exit code — without waiting for threads (``server.stdio.leave``)."""
    from server.logs import configure_stderr
    from server.stdio import leave

    configure_stderr()
    server = create_server()
    server.start_io()
    leave(server.exit_code if server.exit_code is not None else 1)


__all__ = ["create_server", "main"]
