"""The language server (§7): the LSP front of the harness, built on pygls. An adapter from
LSP to ``harness``: it holds no agent logic. Its runs are opened through the shared
conversation adapter (``server.conversation``), as the ACP front's are (``server.acp``).

``main()`` serves one client on stdio (logs on stderr, never stdout); ``create_server()``
builds a server without starting it. Nothing is built at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.lsp.app import HarnessServer


def create_server() -> HarnessServer:
    from server.lsp.app import create_server as create

    return create()


def main() -> int:
    """Serve one client over stdin/stdout until it exits, then end the process with the
    LSP exit code — without waiting for threads (``server.lsp.wire.stdio.leave``)."""
    from server.lsp.wire.logs import configure_stderr
    from server.lsp.wire.stdio import leave

    configure_stderr()
    server = create_server()
    server.start_io()
    leave(server.exit_code if server.exit_code is not None else 1)


__all__ = ["create_server", "main"]
