"""The semantic port (§14): what the four semantic tools ask a back end — "answer this
query for this file" — and the answers, as harness values shaped like LSP's (``Location``,
``TextEdit``, ``DocumentSymbol``, ``Diagnostic``) without importing any LSP library. A back
end (the editor's language servers, or servers the harness starts itself) implements
``SemanticPort``; the tools, the ledger and the policy never know which one answered."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, Protocol, runtime_checkable

Method = Literal["references", "rename", "symbols", "diagnostics"]
# How a back end counts columns (LSP ``positionEncoding``): UTF-16 unless negotiated.
Encoding = Literal["utf-16", "utf-8", "utf-32"]


@dataclass(frozen=True)
class Position:
    """Zero-based line and character, counted in the answer's ``Encoding``."""

    line: int
    character: int


@dataclass(frozen=True)
class Span:
    start: Position
    end: Position


@dataclass(frozen=True)
class Location:
    """A place in a file: ``path`` relative to the workspace root (the back end has
    already turned its URI into one, or refused it)."""

    path: str
    span: Span


@dataclass(frozen=True)
class TextEdit:
    span: Span
    new_text: str


@dataclass(frozen=True)
class FileEdit:
    """The edits one file of a rename gets (LSP ``TextDocumentEdit``)."""

    path: str
    edits: tuple[TextEdit, ...]


@dataclass(frozen=True)
class Symbol:
    """One entry of a file's outline (LSP ``DocumentSymbol``); ``kind`` in words."""

    name: str
    kind: str
    span: Span
    children: tuple[Symbol, ...] = ()


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    HINT = "hint"


@dataclass(frozen=True)
class Diagnostic:
    path: str
    span: Span
    severity: Severity
    message: str
    source: str = ""


@dataclass(frozen=True)
class Query:
    """One semantic question about one file: its workspace-relative ``path`` and its
    ``text`` as the harness read it (through the policy); ``position`` (references, rename)
    counts characters in code points — a back end converts it to what it negotiated."""

    method: Method
    path: str
    text: str
    position: Position | None = None
    new_name: str | None = None


@dataclass(frozen=True)
class Answer:
    """What a back end answered. ``backend`` is ``editor`` or ``server``; ``server`` names
    the client or the program (recorded in the trace, §14). ``outside`` counts the places
    the back end refused because their URI left the workspace; ``fallback`` says why the
    editor did not answer when the headless back end did instead."""

    backend: Literal["editor", "server"]
    server: str
    encoding: Encoding = "utf-16"
    locations: tuple[Location, ...] = ()
    edits: tuple[FileEdit, ...] = ()
    symbols: tuple[Symbol, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    outside: int = 0
    fallback: str = ""  # why the back end asked first did not answer ("": it did)
    ms: int = 0  # how long the answer took, as the tool measured it (the trace's latency)


class SemanticUnavailable(Exception):
    """No back end can answer (no server configured for the language, a server that hung
    or died twice, an answer that made no sense). The message is for the model and says
    what to do."""


class SemanticPort(Protocol):
    """Answers semantic queries; one per run (a back end or a chain of them)."""

    async def answer(self, query: Query) -> Answer:
        """The answer, or ``SemanticUnavailable`` saying why not."""
        ...

    async def diagnostics(self, path: str, text: str, wait_ms: int) -> tuple[Diagnostic, ...]:
        """The diagnostics of ``path`` holding ``text`` (as the harness read it), waiting
        at most ``wait_ms`` for a server that pushes them; () when no server is configured
        for the file."""
        ...

    def servers(self) -> tuple[str, ...]:
        """The language servers running now (for ``harness.status``)."""
        ...

    def after_edit_wait_ms(self) -> int | None:
        """How long to wait for diagnostics after a turn that wrote files (§14,
        ``diagnosticsWaitMs``); None: ``diagnosticsAfterEdit = "off"``."""
        ...

    async def close(self) -> None: ...


@runtime_checkable
class DiagnosticsBeside(Protocol):
    """A port that can say a file's diagnostics as if other files held other texts (each
    opened with its text first, so a type-aware server reads them instead of the disk)."""

    async def diagnostics_beside(
        self, path: str, text: str, beside: Mapping[str, str], wait_ms: int
    ) -> tuple[Diagnostic, ...] | None:
        """``path``'s diagnostics holding ``text`` while each of ``beside`` (workspace-
        relative) holds its text; None: this server's diagnostics depend on a file's own
        text alone (other files cannot change them)."""
        ...


@dataclass
class NoSemantics:
    """The port of a run with no back end: every query says how to configure one."""

    reason: str = "no language server is available to this run"
    _none: tuple[str, ...] = field(default=())

    async def answer(self, query: Query) -> Answer:
        raise SemanticUnavailable(self.reason)

    async def diagnostics(self, path: str, text: str, wait_ms: int) -> tuple[Diagnostic, ...]:
        return ()

    def servers(self) -> tuple[str, ...]:
        return self._none

    def after_edit_wait_ms(self) -> int | None:
        return None

    async def close(self) -> None:
        return None
