"""What the server's parts may ask of the server: narrow protocols, in a leaf module, so
that the run manager and the command modules depend on these and not on ``HarnessServer``
(which implements them, in ``server.lsp.app``).

    RunHost       what starting and reporting a run needs: settings, folders, the store,
                  the editor's documents, notifications, and pygls for progress/requests
    Runs          the runs in progress, as commands see them (``RunManager``)
    CommandHost   RunHost + the runs + the folders and their watchers: what commands get
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from lsprotocol.types import MessageType
    from pygls.lsp.server import LanguageServer

    from harness.semantic import SemanticPort
    from harness.store import Store
    from server.lsp.dialogs import Dialogs
    from server.lsp.documents import DocumentTracker
    from server.lsp.params import RunParams
    from server.lsp.settings import Settings


class RunHost(Protocol):
    @property
    def lsp(self) -> LanguageServer:
        """The pygls server: work-done progress and requests to the client."""
        ...

    @property
    def settings(self) -> Settings: ...

    @property
    def documents(self) -> DocumentTracker: ...

    @property
    def dialogs(self) -> Dialogs:
        """``window/showMessageRequest`` with this client, and whether it works."""
        ...

    def folder_roots(self) -> list[Path]:
        """The client's workspace folders, resolved."""
        ...

    def folder(self, given: str | None) -> Path:
        """The workspace folder a command names (``given``) or the first one."""
        ...

    def store(self) -> Store: ...

    def store_path(self) -> Path:
        """Where the store is (or will be): approval views are written beside it."""
        ...

    def notify(self, method: str, params: Any) -> None: ...

    def show(
        self, message: str, kind: MessageType = ..., data: dict[str, Any] | None = None
    ) -> None:
        """``window/showMessage`` (redacted)."""
        ...


class Runs(Protocol):
    async def start(self, params: RunParams, *, announce: bool = False) -> dict[str, Any]:
        """``{runId}`` once the run exists; it continues in the background. ``announce``:
        its end is also shown with ``window/showMessage`` (a code action's run: the client
        may have no conversation view)."""
        ...

    def cancel(self, run_id: int) -> bool: ...

    def steer(self, run_id: int, text: str) -> bool: ...

    def is_active(self, run_id: int) -> bool: ...

    def status(self) -> list[dict[str, Any]]:
        """Each active run, as ``harness.status`` shows it."""
        ...

    def semantic_port(self, root: Path) -> SemanticPort | None:
        """The §14 back end of the folder ``root`` (what an undo's diagnostics ask)."""
        ...

    def language_servers(self) -> list[str]:
        """The language servers running for the semantic tools (§14)."""
        ...

    @property
    def last_budget(self) -> dict[str, Any] | None:
        """The last ``harness/budget`` sent, of any run."""
        ...

    def paths_changed(self, paths: list[Path]) -> None:
        """Files changed through the editor or a revert: every run they are in is told."""
        ...

    def telemetry_status(self) -> dict[str, Any] | None:
        """Spans ended, exported and dropped (None: no OpenTelemetry export)."""
        ...


class CommandHost(RunHost, Protocol):
    @property
    def runs(self) -> Runs: ...

    def folder_roots(self) -> list[Path]: ...

    def watching(self, root: Path) -> bool:
        """Whether changes on disk under ``root`` are being watched."""
        ...


__all__ = ["CommandHost", "RunHost", "Runs"]
