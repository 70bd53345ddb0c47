"""The language server: ``HarnessServer`` holds the state (settings, stores, open documents,
runs, watchers) and ``create_server`` wires the LSP lifecycle and the feature modules.

    initialize                  settings from initializationOptions
    initialized                 logs to window/logMessage; bad settings reported
                                (showMessage); a watcher per workspace folder
    didChangeConfiguration      new settings (``settings: null``: pulled through
                                workspace/configuration, section ``harness``)
    didChangeWorkspaceFolders   watchers follow the folders
    didOpen/Change/Save/Close   unsaved-buffer tracking; didSave feeds the active runs
    workspace/executeCommand    server.lsp.commands.table
    textDocument/codeAction     server.lsp.code_actions (run by harness.codeAction)
    workDoneProgress/cancel     cancels the run of that progress
    shutdown                    runs cancelled (whole steps recorded), watchers stopped,
                                stores closed (``stop``; also on ``exit`` and end of stdin)
    the stream                  ``server.lsp.wire.stdio`` (frames: ``server.lsp.wire.framing``;
                                JSON-RPC and LSP rules: ``server.lsp.wire.protocol``)

Nothing is built at import time, and only pygls is imported before ``initialize`` is
answered: settings are parsed, and the harness (pydantic, the store, the loop) is loaded,
once the client is initialized — or on first use, whichever comes first.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer

from harness import __version__
from harness.redact import redact
from server.lsp import code_actions
from server.lsp.commands import table
from server.lsp.dialogs import Dialogs
from server.lsp.documents import DocumentTracker
from server.lsp.errors import CommandError
from server.lsp.folders import folder_roots, named_folder, pick_folder, uri_to_path
from server.lsp.run_manager import RunManager
from server.lsp.stores import Stores
from server.lsp.watch import FolderWatchers
from server.lsp.wire.logs import LspLogHandler
from server.lsp.wire.protocol import HarnessProtocol
from server.lsp.wire.rpc import ask_client, notify
from server.lsp.wire.section import SECTION

if TYPE_CHECKING:
    from harness.store import Store
    from server.lsp.settings import Settings

log = logging.getLogger(__name__)

SERVER_NAME = "harness-lsp"

PULL_TIMEOUT_S = 5.0


class HarnessServer(LanguageServer):
    """The harness, hosted for one client connection. Implements ``server.lsp.host.CommandHost``
    for the run manager and the command modules."""

    def __init__(self) -> None:
        super().__init__(
            name=SERVER_NAME,
            version=__version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=HarnessProtocol,
        )
        self._settings: Settings | None = None
        self._stopped = False
        self.exit_code: int | None = None
        self._pending_settings: tuple[object, str] | None = (None, "defaults")
        # Store reads run in worker threads (OFF_LOOP) and read the settings too: one parse
        # at a time, so a reader never sees the pending settings taken but not yet applied.
        self._settings_lock = threading.RLock()
        self.stores = Stores()
        self.documents = DocumentTracker(self._buffer_text)
        self.dialogs = Dialogs(self.protocol)
        self.runs = RunManager(self)
        self.watchers = FolderWatchers(self.runs.files_changed)
        self.log_handler: LspLogHandler | None = None

    # -- the connection ----------------------------------------------------------------

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve the client on stdio until ``exit`` or the end of stdin (``server.lsp.wire.stdio``);
        the LSP exit code is in ``exit_code`` afterwards."""
        from server.lsp.wire import stdio

        assert isinstance(self.protocol, HarnessProtocol)
        self.exit_code = stdio.run(
            self.protocol, self.stop, stdin or sys.stdin.buffer, stdout or sys.stdout.buffer
        )

    async def stop(self) -> None:
        """Cancel the runs (each records its end), stop the watchers, close the stores.
        Called on ``shutdown``, and on ``exit`` or the end of stdin; once is enough."""
        if self._stopped:
            return
        self._stopped = True
        await self.runs.stop_all()
        await self.watchers.stop_all()
        self.stores.close_all()
        if self.log_handler is not None:
            self.log_handler.uninstall()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls's report of a failure outside a request: logged (redacted, with what
        failed), and shown to the user only as a short, redacted line. A command's refusal
        (a user's mistake: a bad setting, no key, a run already going) is the answer the
        client shows, logged as such — not as an internal error."""
        if is_answer(error):
            log.info("answered with an error: %s", error)
            return
        log.error(
            "internal error (%s): %s: %s",
            getattr(source, "__name__", source),
            type(error).__name__,
            error,
        )
        if source.__name__ != "FeatureRequestError":
            self.show(
                f"harness-lsp: internal error: {type(error).__name__}: {error}",
                types.MessageType.Error,
            )

    # -- what commands need (server.lsp.host) ------------------------------------------------

    @property
    def lsp(self) -> LanguageServer:
        return self

    def watching(self, root: Path) -> bool:
        return self.watchers.ready(root)

    def folder_roots(self) -> list[Path]:
        """The open folders the agent may work in: not the home folder or ``/`` unless the
        user config allows it (``harness.policy.home``; those are never watched)."""
        return [r for r in self._opened() if _refusal(r) is None]

    def _opened(self) -> list[Path]:
        try:
            workspace = self.workspace
        except RuntimeError:  # not initialized yet
            return []
        return folder_roots(workspace)

    def folder(self, given: str | None) -> Path:
        """The workspace folder a command names (``given``) or the first one; the home
        folder or ``/`` is refused, saying why."""
        opened = self._opened()
        chosen = named_folder(given) if given is not None else next(iter(opened), None)
        refusal = None if chosen is None else _refusal(chosen)
        if refusal is not None:
            raise CommandError(refusal)
        return pick_folder(self.folder_roots(), given)

    def store(self) -> Store:
        return self.stores.get(self.settings.store_file)

    def store_path(self) -> Path:
        """The store's file, or for a PostgreSQL store the user data dir's place for it:
        approval views are written beside it, and the watchers ignore it."""
        from harness.store import local_dir

        location = self.stores.path_for(self.settings.store_file)
        return location if isinstance(location, Path) else local_dir(location) / "harness.db"

    def notify(self, method: str, params: Any) -> None:
        notify(self.protocol, method, params)

    def show(
        self,
        message: str,
        kind: types.MessageType = types.MessageType.Warning,
        data: dict[str, Any] | None = None,
    ) -> None:
        """``window/showMessage``, redacted of every registered key (§6.7); ``data`` (the
        facts the message says, ``server.protocol``'s ``ERROR_DATA``) goes beside it for
        clients that word it themselves — an extra field other clients ignore."""
        if data is None:
            params = types.ShowMessageParams(type=kind, message=redact(message))
            self.notify(types.WINDOW_SHOW_MESSAGE, params)
            return
        raw = {"type": int(kind), "message": redact(message), "data": data}
        if isinstance(self.protocol, HarnessProtocol):
            self.protocol.notify_json(types.WINDOW_SHOW_MESSAGE, raw)

    def set_settings(self, raw: object, source: str) -> None:
        """New settings from the client; parsed (and reported) when next needed."""
        self._pending_settings = (raw, source)

    @property
    def settings(self) -> Settings:
        with self._settings_lock:
            if self._pending_settings is not None:
                raw, source = self._pending_settings
                self._pending_settings = None
                self._apply_settings(raw, source)
            assert self._settings is not None
            return self._settings

    def _apply_settings(self, raw: object, source: str) -> None:
        """Take new settings; report each bad value (it falls back to its default)."""
        from server.lsp.settings import parse_settings

        settings, problems = parse_settings(raw)
        self._settings = settings
        for problem in problems:
            outcome = (
                "runs are refused until it is fixed, so that none goes to the provider's "
                "hosted API instead"
                if problem.refuses_runs
                else "using the default"
            )
            message = f"harness: invalid setting {problem} (from {source}); {outcome}"
            log.warning("%s", message)
            data = {
                "kind": "invalidSetting",
                "setting": problem.field,
                "problem": problem.message,
                "source": source,
                "refusesRuns": problem.refuses_runs,
            }
            self.show(message, data=data)

    async def pull_settings(self) -> object | None:
        """The ``harness`` section through ``workspace/configuration``, if the client has it."""
        workspace = self.client_capabilities.workspace
        if not (workspace and workspace.configuration):
            return None
        request = types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        try:
            answer = await ask_client(
                self.protocol, types.WORKSPACE_CONFIGURATION, request, within_s=PULL_TIMEOUT_S
            )
        except Exception as exc:
            log.warning("could not read the settings from the client: %s", exc)
            return None
        return answer[0] if isinstance(answer, list | tuple) and answer else None

    def _buffer_text(self, uri: str) -> str | None:
        try:
            doc = self.workspace.text_documents.get(unquote(uri))
        except RuntimeError:
            return None
        return doc.source if doc is not None else None


def is_answer(error: BaseException) -> bool:
    """A JSON-RPC error a command chose to answer with (not -32603, a fault of ours)."""
    return isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError)


class _AnswersAreNotFaults(logging.Filter):
    """pygls logs every error answer with its traceback; a command's refusal is no fault."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return exc is None or not is_answer(exc)


def create_server() -> HarnessServer:
    rpc_log = logging.getLogger("pygls.protocol.json_rpc")
    if not any(isinstance(f, _AnswersAreNotFaults) for f in rpc_log.filters):
        rpc_log.addFilter(_AnswersAreNotFaults())
    ls = HarnessServer()
    _register_lifecycle(ls)
    _register_documents(ls)
    table.register(ls)
    return ls


def _refusal(root: Path) -> str | None:
    """``root_refusal`` for the user config (a config that cannot be read refuses)."""
    from harness.errors import ConfigError
    from harness.policy import default_user_config, root_refusal

    try:
        return root_refusal(root, default_user_config())
    except ConfigError as exc:
        return str(exc)


def _register_lifecycle(server: HarnessServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: HarnessServer, params: types.InitializeParams) -> None:
        ls.set_settings(params.initialization_options, "initializationOptions")

    @server.feature(types.INITIALIZED)
    async def initialized(ls: HarnessServer, params: types.InitializedParams) -> None:
        ls.log_handler = LspLogHandler.install(ls.protocol, asyncio.get_running_loop())
        await table.LOADER.ensure()  # failures are logged; the first command says more
        _ = ls.settings  # parse now: bad values are reported right after initialize
        roots = ls.folder_roots()
        log.info("harness-lsp %s: workspace folders %s", __version__, [str(r) for r in roots])
        await ls.watchers.start(roots, ignore=[ls.store_path()])

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: HarnessServer, params: None) -> None:
        await ls.stop()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: HarnessServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await table.LOADER.ensure()  # parsing imports the harness: never beside the load
        raw, source = params.settings, "didChangeConfiguration"
        if raw is None:  # a pull-model client: "settings changed, ask for them"
            raw, source = await ls.pull_settings(), "workspace/configuration"
            if raw is None:
                return
        ls.set_settings(raw, source)
        _ = ls.settings  # report bad values now, not at the next command

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_folders(
        ls: HarnessServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        for folder in params.event.removed:
            path = uri_to_path(folder.uri)
            if path is not None:
                await ls.watchers.stop(path.resolve())
        await ls.watchers.start(ls.folder_roots(), ignore=[ls.store_path()])

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(ls: HarnessServer, params: types.WorkDoneProgressCancelParams) -> None:
        ls.runs.cancel_progress(str(params.token))


def _register_documents(server: HarnessServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: HarnessServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.documents.opened(params.text_document.uri, params.text_document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: HarnessServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.documents.changed(params.text_document.uri, params.text_document.version)

    @server.feature(
        types.TEXT_DOCUMENT_DID_SAVE, types.TextDocumentSaveRegistrationOptions(include_text=False)
    )
    def did_save(ls: HarnessServer, params: types.DidSaveTextDocumentParams) -> None:
        path = ls.documents.saved(params.text_document.uri)
        if path is not None:
            ls.runs.paths_changed([path])

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: HarnessServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.documents.closed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, code_actions.OPTIONS)
    def code_action(ls: HarnessServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return code_actions.offered(params)


__all__ = ["HarnessServer", "create_server"]
