"""A misbehaving language server for the semantic back end's bad-input tests (a real pygls
server over stdio, started by the harness like any other): ``hang`` never answers
references, ``crash`` exits when asked, ``outside`` answers with places outside the
workspace, ``env SECRET`` names in its one symbol the variables it got that look like keys or
hold SECRET."""

from __future__ import annotations

import os
import sys

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "hang"
server = LanguageServer("fake-langserver", "1")


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
async def references(params: lsp.ReferenceParams) -> list[lsp.Location] | None:
    if MODE == "crash":
        os._exit(3)
    if MODE == "hang":
        import asyncio

        await asyncio.sleep(3600)
    where = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 1))
    return [
        lsp.Location("file:///etc/passwd", where),
        lsp.Location(params.text_document.uri, where),
    ]


@server.feature(lsp.TEXT_DOCUMENT_RENAME)
def rename(params: lsp.RenameParams) -> lsp.WorkspaceEdit:
    where = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 1))
    edit = [lsp.TextEdit(where, params.new_name)]
    return lsp.WorkspaceEdit(changes={"file:///etc/passwd": edit, params.text_document.uri: edit})


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def symbols(params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
    secret = sys.argv[2] if len(sys.argv) > 2 else ""
    leaked = sorted(k for k, v in os.environ.items() if "KEY" in k or (secret and secret in v))
    where = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 1))
    name = "env:" + (",".join(leaked) or "clean")
    return [lsp.DocumentSymbol(name, lsp.SymbolKind.Variable, where, where)]


if __name__ == "__main__":
    server.start_io()
