"""``HeadlessSemantics``: the ``SemanticPort`` of servers the harness starts itself (§14).
The server for a file is the user's ``[languages.NAME]`` whose extensions match; it is
started on the first query for its language and kept for the workspace while it is used:
one idle for ``idle_s`` (``[semantic] idleMinutes``, default 10) is shut down and started
again by the next query (that is no failure); a server that dies or hangs is restarted
once, then reported; ``close`` shuts every one down. Each query
opens the document with the text the harness read (through the policy), asks, and closes
it, so the server reads every other file from disk as it is now."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from harness.semantic.config import LanguageServer, SemanticConfig
from harness.semantic.model import Answer, Diagnostic, Query, SemanticUnavailable
from harness.semantic.text import lines_of, units
from harness.tools.environment import exec_environment
from langservers import convert
from langservers.client import Running, ServerFailed
from langservers.sources import sources

log = logging.getLogger(__name__)
MAX_RESTARTS = 1


class HeadlessSemantics:
    """Language servers for one workspace ``root``."""

    def __init__(
        self,
        root: Path,
        config: SemanticConfig,
        environ: Mapping[str, str] | None = None,
        *,
        on_idle_stop: Callable[[str], None] | None = None,
    ) -> None:
        self.root = root.resolve()
        self.config = config
        self.env = exec_environment(os.environ if environ is None else environ)
        self.on_idle_stop = on_idle_stop  # told the name of each server stopped for idleness
        self._running: dict[str, Running] = {}
        self._failures: dict[str, int] = {}
        self._lock = asyncio.Lock()
        self._busy: dict[str, int] = {}  # queries in flight per server
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._stopping: set[asyncio.Task[None]] = set()
        self._documents: dict[str, asyncio.Lock] = {}  # one opening of a document at a time
        self._shadows = 0

    def after_edit_wait_ms(self) -> int | None:
        return self.config.wait_ms if self.config.after_edit == "turn" else None

    def servers(self) -> tuple[str, ...]:
        return tuple(
            f"{name}: {r.spec.program} ({r.how})" for name, r in self._running.items() if r.alive
        )

    async def close(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        running, self._running = list(self._running.values()), {}
        stops = [r.stop() for r in running]
        await asyncio.gather(*stops, *self._stopping, return_exceptions=True)

    @contextlib.contextmanager
    def _use(self, name: str) -> Iterator[None]:
        """A query to server ``name``: its idle clock stops, and starts again after."""
        self._busy[name] = self._busy.get(name, 0) + 1
        timer = self._timers.pop(name, None)
        if timer is not None:
            timer.cancel()
        try:
            yield
        finally:
            self._busy[name] -= 1
            if self._busy[name] == 0 and name in self._running:
                loop = asyncio.get_running_loop()
                self._timers[name] = loop.call_later(self.config.idle_s, self._idle, name)

    def _idle(self, name: str) -> None:
        self._timers.pop(name, None)
        running = self._running.get(name)
        if self._busy.get(name) or running is None:
            return
        del self._running[name]
        task = asyncio.ensure_future(self._stop_idle(name, running))
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    async def _stop_idle(self, name: str, running: Running) -> None:
        await running.stop()
        minutes = self.config.idle_s / 60
        log.info("language server %s stopped after %.3g min unused", running.spec.program, minutes)
        if self.on_idle_stop is not None:
            self.on_idle_stop(name)

    async def _server(self, spec: LanguageServer) -> Running:
        async with self._lock:
            running = self._running.get(spec.name)
            if running is not None and running.alive:
                return running
            if running is not None or self._failures.get(spec.name, 0) > MAX_RESTARTS:
                self._running.pop(spec.name, None)
                self._check_restarts(spec)
            started = Running(spec, self.root, self.config.timeout_ms / 1000)
            try:
                await started.start(self.env)
            except ServerFailed as exc:
                await started.stop()
                self._failures[spec.name] = self._failures.get(spec.name, 0) + 1
                raise SemanticUnavailable(f"the language server {exc}") from None
            self._running[spec.name] = started
            return started

    def _check_restarts(self, spec: LanguageServer) -> None:
        if self._failures.get(spec.name, 0) > MAX_RESTARTS:
            raise SemanticUnavailable(
                f"the language server `{spec.program}` failed {MAX_RESTARTS + 1} times in this "
                "run and is not started again; use grep and read_file instead"
            )

    async def _failed(self, spec: LanguageServer, running: Running, exc: Exception) -> None:
        self._failures[spec.name] = self._failures.get(spec.name, 0) + 1
        self._running.pop(spec.name, None)
        await running.stop()
        again = self._failures[spec.name] <= MAX_RESTARTS
        note = "it will be restarted on the next call" if again else "it is not started again"
        raise SemanticUnavailable(f"the language server {exc}; {note}") from None

    async def answer(self, query: Query) -> Answer:
        spec = self.config.server_of(query.path)
        with self._use(spec.name):
            return await self._answer(spec, query)

    async def _answer(self, spec: LanguageServer, query: Query) -> Answer:
        running = await self._server(spec)
        uri = (self.root / query.path).as_uri()
        others: list[str] = []
        try:
            if query.method != "symbols" and not spec.text_only_diagnostics:
                others = await self._open_others(running, spec, query.path)
            return await self._ask(running, query, uri)
        except ServerFailed as exc:
            await self._failed(spec, running, exc)
            raise  # unreachable: _failed raises
        except SemanticUnavailable:
            raise
        except Exception as exc:  # an error answer, or one that is not LSP
            raise SemanticUnavailable(
                f"the language server `{spec.program}` could not answer: "
                f"{type(exc).__name__}: {str(exc)[:300]}"
            ) from None
        finally:
            if running.alive:
                for done in (uri, *others):
                    running.client.text_document_did_close(
                        lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(done))
                    )

    async def _open_others(self, running: Running, spec: LanguageServer, path: str) -> list[str]:
        """Open the workspace's other files of ``spec``'s language (as on disk; at most
        ``MAX_OTHERS``) before a cross-file question: a server that analyses the workspace
        in the background (basedpyright) answers references and rename for open files
        only until that analysis ends. A server reads these files from disk anyway."""
        found = await asyncio.to_thread(sources, self.root, spec.extensions, path)
        opened: list[str] = []
        for rel, text in found:
            uri = (self.root / rel).as_uri()
            if self._documents.get(uri, asyncio.Lock()).locked():
                continue  # a diagnostics question has it open with a text of its own
            self._open(running, uri, text)
            opened.append(uri)
        return opened

    def _open(self, running: Running, uri: str, text: str) -> int:
        """Open the document at a version of its own (so the diagnostics published for it
        are told from those of an earlier opening); returns the version."""
        running.diagnostics.pop(uri, None)
        running.version += 1
        item = lsp.TextDocumentItem(uri, running.spec.name, running.version, text)
        running.client.text_document_did_open(lsp.DidOpenTextDocumentParams(item))
        return running.version

    async def _ask(self, running: Running, query: Query, uri: str) -> Answer:
        self._open(running, uri, query.text)
        enc = running.encoding
        base = Answer("server", running.spec.program, encoding=enc)  # type: ignore[arg-type]
        doc = lsp.TextDocumentIdentifier(uri)
        client = running.client
        if query.method == "symbols":
            found = await running.call(
                client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc))
            )
            return _with(base, symbols=convert.symbols(found))
        pos = self._position(query, enc)
        if query.method == "references":
            ctx = lsp.ReferenceContext(include_declaration=True)
            places = await running.call(
                client.text_document_references_async(lsp.ReferenceParams(ctx, doc, pos))
            )
            locs, outside = convert.locations(places, self.root)
            return _with(base, locations=locs, outside=outside)
        params = lsp.RenameParams(doc, pos, query.new_name or "")
        edit = await running.call(client.text_document_rename_async(params))
        edits, outside = convert.workspace_edit(edit, self.root)
        return _with(base, edits=edits, outside=outside)

    @staticmethod
    def _position(query: Query, enc: str) -> lsp.Position:
        assert query.position is not None
        line = lines_of(query.text)[query.position.line]
        column = units(line[: query.position.character], enc)  # type: ignore[arg-type]
        return lsp.Position(query.position.line, column)

    async def diagnostics(self, path: str, text: str, wait_ms: int) -> tuple[Diagnostic, ...]:
        spec = self.config.server_for(path)
        if spec is None:
            return ()
        with self._use(spec.name):
            return await self._diagnostics(spec, path, text, wait_ms)

    async def diagnostics_beside(
        self, path: str, text: str, beside: Mapping[str, str], wait_ms: int
    ) -> tuple[Diagnostic, ...] | None:
        spec = self.config.server_for(path)
        if spec is None:
            return ()
        if spec.text_only_diagnostics:
            return None
        with self._use(spec.name):
            running = await self._server(spec)
            opened = [
                self._open_as(running, other, body)
                for other, body in beside.items()
                if other != path and self.config.server_for(other) == spec
            ]
            try:
                return await self._diagnostics(spec, path, text, wait_ms)
            finally:
                for uri in opened:
                    if running.alive:
                        running.client.text_document_did_close(
                            lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri))
                        )

    def _open_as(self, running: Running, path: str, text: str) -> str:
        uri = (self.root / path).as_uri()
        self._open(running, uri, text)
        return uri

    async def _diagnostics(
        self, spec: LanguageServer, path: str, text: str, wait_ms: int
    ) -> tuple[Diagnostic, ...]:
        running = await self._server(spec)
        uri = (self.root / path).as_uri()
        lock = self._documents.setdefault(uri, asyncio.Lock())
        if lock.locked() and spec.text_only_diagnostics:
            return await self._published(running, path, self._shadow(path), text, wait_ms)
        async with lock:
            return await self._published(running, path, uri, text, wait_ms)

    def _shadow(self, path: str) -> str:
        """A document URI of its own for a second text of ``path`` asked while the first is
        open (same file name, so a server whose diagnostics depend on the text alone says
        the same words): the server's per-document debounce then runs for both at once."""
        self._shadows += 1
        real = self.root / path
        return (real.parent / f".harness-text-{self._shadows}" / real.name).as_uri()

    async def _published(
        self, running: Running, path: str, uri: str, text: str, wait_ms: int
    ) -> tuple[Diagnostic, ...]:
        """Open ``uri`` with ``text``; the diagnostics the server publishes for that
        opening, as soon as it does (at most ``wait_ms``)."""
        version = self._open(running, uri, text)

        def arrived() -> bool:
            return running.pull or running.diagnostics.get(uri, (None, []))[0] == version

        try:
            async with running.published:
                await asyncio.wait_for(running.published.wait_for(arrived), wait_ms / 1000)
            if running.pull:
                return convert.diagnostics(path, await self._pull(running, uri))
        except TimeoutError:
            pass
        finally:
            if running.alive:
                running.client.text_document_did_close(
                    lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri))
                )
        said, found = running.diagnostics.get(uri, (None, []))
        return convert.diagnostics(path, found if said in (version, None) else [])

    async def _pull(self, running: Running, uri: str) -> list[lsp.Diagnostic]:
        """The server's diagnostics of ``uri`` asked for (``textDocument/diagnostic``); a
        server that dies or hangs is handled as for any query; an error answer says none."""
        params = lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri))
        try:
            report = await running.call(running.client.text_document_diagnostic_async(params))
        except ServerFailed as exc:
            await self._failed(running.spec, running, exc)
            raise  # unreachable: _failed raises
        except Exception as exc:  # an error answer, or one that is not LSP
            log.info("%s: textDocument/diagnostic failed: %s", running.spec.program, exc)
            return []
        return list(getattr(report, "items", None) or [])


def _with(base: Answer, **fields: Any) -> Answer:
    return dataclasses.replace(base, **fields)


__all__ = ["HeadlessSemantics"]
