"""One language server the harness started (§14): pygls's ``LanguageClient`` over stdio,
the process run with the §6.6 environment (no keys) inside the exec sandbox with the
workspace read-only and no network when bubblewrap works here; answering what a server
asks of a real client (``workspace/configuration``, ``client/registerCapability``,
``window/workDoneProgress/create``); keeping the diagnostics it publishes; every request
bounded by the timeout and by the process's death."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from harness import sandbox
from harness.semantic.config import LanguageServer

log = logging.getLogger(__name__)
T = TypeVar("T")
STOP_TIMEOUT_S = 5.0
STDERR_KEEP = 4000
# Asked by servers (basedpyright asks the first, and exits when it is not answered).
REFRESH = (
    lsp.WORKSPACE_DIAGNOSTIC_REFRESH,
    lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
    lsp.WORKSPACE_INLAY_HINT_REFRESH,
    lsp.WORKSPACE_CODE_LENS_REFRESH,
)
# Said by servers (basedpyright: the last three), needing no answer.
QUIET = (
    lsp.PROGRESS,
    lsp.WINDOW_LOG_MESSAGE,
    "pyright/beginProgress",
    "pyright/reportProgress",
    "pyright/endProgress",
)


class ServerFailed(Exception):
    """The server died, hung, or could not start; the message says which."""


class _Client(LanguageClient):
    """pygls's client, told when its process exits."""

    def __init__(self) -> None:
        super().__init__("harness-lsp", "1")
        self.exited = asyncio.Event()

    async def server_exit(self, server: asyncio.subprocess.Process) -> None:
        self.exited.set()


def _capabilities() -> lsp.ClientCapabilities:
    return lsp.ClientCapabilities(
        general=lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf16]),
        workspace=lsp.WorkspaceClientCapabilities(
            configuration=True,
            workspace_edit=lsp.WorkspaceEditClientCapabilities(document_changes=True),
        ),
        text_document=lsp.TextDocumentClientCapabilities(
            document_symbol=lsp.DocumentSymbolClientCapabilities(
                hierarchical_document_symbol_support=True
            ),
            rename=lsp.RenameClientCapabilities(prepare_support=False),
            publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(),
            # basedpyright then answers textDocument/diagnostic once it has checked the
            # file (its pushed diagnostics come first empty, then whole: no telling when).
            diagnostic=lsp.DiagnosticClientCapabilities(dynamic_registration=True),
            synchronization=lsp.TextDocumentSyncClientCapabilities(did_save=True),
        ),
        window=lsp.WindowClientCapabilities(work_done_progress=True),
    )


def command(
    spec: LanguageServer, root: Path, env: Mapping[str, str]
) -> tuple[list[str], tuple[int, ...], str]:
    """The command line (sandboxed when the sandbox works), the fds it inherits, and how
    it runs (for ``harness.status``)."""
    argv = list(spec.argv)
    found = sandbox.probe(network=False)
    if not found.available:
        return argv, (), f"unsandboxed: {found.reason}"
    boxed = sandbox.sandboxed(
        argv,
        found,
        root=root,
        network=False,
        read_only=(root, *argument_dirs(argv)),
        search_path=env.get("PATH"),
    )
    return boxed.argv, boxed.pass_fds, "sandboxed: workspace read-only, no network"


def argument_dirs(argv: list[str]) -> tuple[Path, ...]:
    """The folders of the files the user's command line names after its program (a script
    the interpreter runs, a config file): bound read-only, so one under ``/tmp`` — hidden by
    the sandbox's private ``/tmp`` — is still there. Only the user config chooses them."""
    found: list[Path] = []
    for arg in argv[1:]:
        path = Path(arg)
        if path.is_absolute() and path.is_file() and path.parent not in found:
            found.append(path.parent)
    return tuple(found)


class Running:
    """A started, initialised server for one workspace."""

    def __init__(self, spec: LanguageServer, root: Path, timeout_s: float) -> None:
        self.spec = spec
        self.root = root
        self.timeout_s = timeout_s
        self.client = _Client()
        self.encoding = "utf-16"
        self.how = ""
        # uri -> (the document version they are for, None: unsaid; the diagnostics)
        self.diagnostics: dict[str, tuple[int | None, list[lsp.Diagnostic]]] = {}
        self.version = 0  # every document opened gets a new version number
        self.pull = False  # the server answers textDocument/diagnostic (pull diagnostics)
        self.published = asyncio.Condition()
        self._stderr = bytearray()
        self._drainer: asyncio.Future[None] | None = None
        self._install()

    def _install(self) -> None:
        c = self.client

        @c.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
        async def _published(params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = (params.version, list(params.diagnostics))
            async with self.published:
                self.published.notify_all()

        @c.feature(lsp.WORKSPACE_CONFIGURATION)  # type: ignore[untyped-decorator]
        def _configuration(params: lsp.ConfigurationParams) -> list[Any]:
            return [None for _ in params.items]

        @c.feature(lsp.CLIENT_REGISTER_CAPABILITY)  # type: ignore[untyped-decorator]
        async def _register(params: lsp.RegistrationParams) -> None:
            if any(r.method == lsp.TEXT_DOCUMENT_DIAGNOSTIC for r in params.registrations):
                self.pull = True
                async with self.published:
                    self.published.notify_all()

        @c.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)  # type: ignore[untyped-decorator]
        def _progress(params: lsp.WorkDoneProgressCreateParams) -> None:
            return None

        for asked in REFRESH:  # requests: a client that shows nothing has nothing to redo

            @c.feature(asked)  # type: ignore[untyped-decorator]
            def _refresh(params: Any) -> None:
                return None

        for said in QUIET:  # notifications a client may ignore; unhandled, pygls logs each

            @c.feature(said)  # type: ignore[untyped-decorator]
            def _ignored(params: Any) -> None:
                return None

    async def start(self, env: Mapping[str, str]) -> None:
        argv, fds, self.how = command(self.spec, self.root, env)
        child = {**env, "XDG_CACHE_HOME": "/tmp/harness-langserver-cache"}
        try:
            await self.client.start_io(
                argv[0], *argv[1:], env=child, cwd=str(self.root), pass_fds=fds
            )
        except OSError as exc:
            raise ServerFailed(f"`{self.spec.argv[0]}` could not be started: {exc}") from exc
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
        server = self.client._server
        if server is not None and server.stderr is not None:
            self._drainer = asyncio.ensure_future(self._drain(server.stderr))
        result = await self.call(self.client.initialize_async(self._init_params()))
        negotiated = result.capabilities.position_encoding
        self.encoding = str(negotiated or "utf-16")
        self.pull = self.pull or result.capabilities.diagnostic_provider is not None
        self.client.initialized(lsp.InitializedParams())

    def _init_params(self) -> lsp.InitializeParams:
        uri = self.root.as_uri()
        return lsp.InitializeParams(
            capabilities=_capabilities(),
            # Inside the sandbox's own PID namespace our pid names no process: a server that
            # watches its client's pid (basedpyright, every few seconds) would exit.
            process_id=None if self.how.startswith("sandboxed") else os.getpid(),
            root_uri=uri,
            workspace_folders=[lsp.WorkspaceFolder(uri=uri, name=self.root.name)],
        )

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        """Read the server's stderr (a full pipe would block it), keeping its tail."""
        while chunk := await stream.read(4096):
            self._stderr += chunk
            del self._stderr[:-STDERR_KEEP]

    @property
    def alive(self) -> bool:
        server = self.client._server
        return server is not None and server.returncode is None and not self.client.exited.is_set()

    def stderr_tail(self) -> str:
        return self._stderr.decode("utf-8", errors="replace").strip()[-600:]

    async def call(self, request: Awaitable[T]) -> T:
        """``request``'s answer, or ``ServerFailed`` when the server dies or does not
        answer within the timeout."""
        task = asyncio.ensure_future(request)
        exited = asyncio.ensure_future(self.client.exited.wait())
        try:
            done, _ = await asyncio.wait(
                {task, exited}, timeout=self.timeout_s, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            exited.cancel()
        if task in done:
            try:
                return task.result()
            except RuntimeError as exc:  # pygls: the process exited with the request pending
                raise ServerFailed(f"`{self.spec.program}` exited: {exc}") from exc
        task.cancel()
        if not done:
            raise ServerFailed(f"`{self.spec.program}` did not answer within {self.timeout_s:g} s")
        raise ServerFailed(f"`{self.spec.program}` exited ({self.stderr_tail() or 'no output'})")

    async def stop(self) -> None:
        """Shut down cleanly (``shutdown``, ``exit``); kill what does not go."""
        server = self.client._server
        if self.alive:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.shutdown_async(None), STOP_TIMEOUT_S)
                self.client.exit(None)
        if server is not None and server.returncode is None:
            try:
                await asyncio.wait_for(server.wait(), STOP_TIMEOUT_S)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    server.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.stop(), STOP_TIMEOUT_S)  # type: ignore[no-untyped-call]


__all__ = ["Running", "ServerFailed", "command"]
