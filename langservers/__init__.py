"""The headless semantic back end (§14): language servers the harness starts itself,
driven over stdio by pygls's own LSP client, behind ``harness.semantic.SemanticPort``.
``client`` runs one server (sandboxed, keyless environment, answering what servers ask of
a real client); ``convert`` turns its LSP answers into the harness's values, refusing URIs
outside the workspace; ``backend`` picks the server for a file, starts it lazily, keeps it
for the workspace, restarts it once. Imported by the fronts (``harness.cli``, ``server``);
``harness`` itself never imports pygls or lsprotocol."""

from langservers.backend import HeadlessSemantics

__all__ = ["HeadlessSemantics"]
