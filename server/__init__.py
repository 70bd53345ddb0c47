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
    """Serve one client over stdin/stdout until it exits."""
    from server.logs import configure_stderr

    configure_stderr()
    create_server().start_io()
    return 0


__all__ = ["create_server", "main"]
