"""harness-lsp's editor fronts (§1): adapters from the editors' protocols to ``harness``,
holding no agent logic.

    server/lsp/            the language server (§7, pygls): VS Code, Neovim
    server/acp/            the Agent Client Protocol agent (§13): Zed, JetBrains, agent plugins
    server/conversation.py the adapter both open their runs through

``main()`` is the ``harness-lsp`` console script and ``python -m server``: the language
server on stdio. Nothing is built at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.lsp.app import HarnessServer


def create_server() -> HarnessServer:
    from server.lsp import create_server as create

    return create()


def main() -> int:
    from server.lsp import main as serve

    return serve()


__all__ = ["create_server", "main"]
