"""The editor back end of the semantic tools (§14): a client that declares
``experimental.harness.semantic`` in ``initialize`` is asked each semantic query with the
server request ``harness/semantic`` and answers from its own language intelligence (VS
Code's providers, Neovim's other attached clients). An answer ``{unavailable}``, an error,
a malformed answer or none in time sends the query to the headless back end instead, and
the answer says so (the trace records who answered). Every URI of an editor's answer goes
through the same containment conversion as the headless back end's."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.protocol import JsonRPCProtocol

from harness.semantic.model import (
    Answer,
    Diagnostic,
    DiagnosticsBeside,
    Encoding,
    Query,
    SemanticPort,
    SemanticUnavailable,
)
from harness.semantic.text import lines_of, units
from server.lsp.inline_approval import _field
from server.lsp.wire.rpc import ask_client
from server.protocol.messages import SEMANTIC

if TYPE_CHECKING:
    from langservers import HeadlessSemantics

log = logging.getLogger(__name__)

REQUEST = SEMANTIC
CAPABILITY = ("harness", "semantic")  # experimental.harness.semantic
ENCODINGS: tuple[Encoding, ...] = ("utf-16", "utf-8", "utf-32")
FIELDS = {"references": "locations", "rename": "edit", "symbols": "symbols"}


def declares_semantic(capabilities: Any) -> bool:
    """Whether the client's ``initialize`` capabilities hold ``experimental.harness.semantic``
    set to true."""
    value: Any = getattr(capabilities, "experimental", None)
    for key in CAPABILITY:
        value = _field(value, key)
    return value is True


def editor_front(ls: Any) -> Callable[[Path, HeadlessSemantics], SemanticPort] | None:
    """What ``SemanticPorts.editor`` is for the client of ``ls`` (a pygls server): None
    when it did not declare the capability."""
    if not declares_semantic(ls.client_capabilities):
        return None

    def front(root: Path, headless: HeadlessSemantics) -> SemanticPort:
        return EditorSemantics(ls.protocol, root, headless, headless.config.timeout_ms / 1000)

    return front


class EditorUnavailable(Exception):
    """The editor did not answer this query (the reason is recorded with the fallback)."""


def plain(value: Any) -> Any:
    """pygls hands unknown JSON objects over as namedtuples: back to dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


class EditorSemantics:
    """A ``SemanticPort`` asking the client first, ``fallback`` (headless) when it cannot."""

    def __init__(
        self, protocol: JsonRPCProtocol, root: Path, fallback: SemanticPort, timeout_s: float
    ) -> None:
        self.protocol = protocol
        self.root = root.resolve()
        self.fallback = fallback
        self.timeout_s = timeout_s
        self._answered: dict[str, None] = {}  # the editor's servers that answered

    def servers(self) -> tuple[str, ...]:
        return (*(f"editor: {s}" for s in self._answered), *self.fallback.servers())

    def after_edit_wait_ms(self) -> int | None:
        return self.fallback.after_edit_wait_ms()

    async def close(self) -> None:
        return None  # the fallback belongs to SemanticPorts, which closes it

    async def answer(self, query: Query) -> Answer:
        try:
            return await self._from_editor(query)
        except EditorUnavailable as exc:
            reason = str(exc)
        log.info("%s %s: the editor did not answer: %s", query.method, query.path, reason)
        answer = await self.fallback.answer(query)
        return dataclasses.replace(answer, fallback=f"the editor: {reason}")

    async def diagnostics(self, path: str, text: str, wait_ms: int) -> tuple[Diagnostic, ...]:
        """The editor's diagnostics when ``text`` is what the file holds now (the editor
        knows no other text); otherwise, or when it cannot answer, the headless back end's."""
        if await asyncio.to_thread(self._holds, path, text):
            try:
                found = await self._ask({**self._doc(path), "waitMs": wait_ms}, "diagnostics")
                return _diagnostics(path, found)
            except EditorUnavailable as exc:
                log.info("diagnostics %s: the editor did not answer (%s)", path, exc)
        return await self.fallback.diagnostics(path, text, wait_ms)

    async def diagnostics_beside(
        self, path: str, text: str, beside: Mapping[str, str], wait_ms: int
    ) -> tuple[Diagnostic, ...] | None:
        """Texts the disk does not hold: the headless back end's (the editor knows none)."""
        if not isinstance(self.fallback, DiagnosticsBeside):
            return None
        return await self.fallback.diagnostics_beside(path, text, beside, wait_ms)

    def _holds(self, path: str, text: str) -> bool:
        try:
            return (self.root / path).read_text("utf-8") == text
        except (OSError, UnicodeDecodeError):
            return False

    def _doc(self, path: str) -> dict[str, Any]:
        return {"textDocument": {"uri": (self.root / path).as_uri()}}

    async def _from_editor(self, query: Query) -> Answer:
        params: dict[str, Any] = self._doc(query.path)
        if query.position is not None:  # code points → UTF-16, as on the wire
            line = lines_of(query.text)[query.position.line]
            column = units(line[: query.position.character], "utf-16")
            params["position"] = {"line": query.position.line, "character": column}
        if query.new_name is not None:
            params["newName"] = query.new_name
        found = await self._ask(params, query.method)
        return _answer(query, found, self.root)

    async def _ask(self, params: dict[str, Any], method: str) -> dict[str, Any]:
        try:
            got = await ask_client(
                self.protocol, REQUEST, {"method": method, **params}, within_s=self.timeout_s
            )
        except TimeoutError:
            raise EditorUnavailable(f"no answer within {self.timeout_s:g} s") from None
        except Exception as exc:  # an error answer (no handler, the provider failed)
            raise EditorUnavailable(f"{type(exc).__name__}: {str(exc)[:200]}") from None
        found = plain(got)
        if not isinstance(found, dict):
            raise EditorUnavailable("the answer is not an object")
        if "unavailable" in found:
            raise EditorUnavailable(str(found["unavailable"])[:200] or "unavailable")
        server = found.get("server")
        if not isinstance(server, str) or not server:
            raise EditorUnavailable("the answer names no `server`")
        self._answered[server[:80]] = None
        return found


def _encoding(found: dict[str, Any]) -> Encoding:
    enc = found.get("positionEncoding", "utf-16")
    if enc not in ENCODINGS:
        raise EditorUnavailable(f"unknown positionEncoding {str(enc)[:20]!r}")
    return enc  # type: ignore[no-any-return]


def _answer(query: Query, found: dict[str, Any], root: Path) -> Answer:
    """The editor's answer as harness values (lsprotocol's converter checks its shape)."""
    from lsprotocol import types as lsp
    from lsprotocol.converters import get_converter

    from langservers import convert

    enc = _encoding(found)
    base = Answer("editor", f"{found['server'][:80]}", encoding=enc)
    key = FIELDS.get(query.method, "")
    data = found.get(key)
    conv = get_converter()
    try:
        if query.method == "references":
            places = conv.structure(data or [], list[lsp.Location])
            locs, outside = convert.locations(places, root)
            return dataclasses.replace(base, locations=locs, outside=outside)
        if query.method == "rename":
            if isinstance(data, dict) and "documentChanges" not in data:
                raise EditorUnavailable("the `edit` answer holds no `documentChanges`")
            edit = conv.structure(data, lsp.WorkspaceEdit) if data is not None else None
            edits, outside = convert.workspace_edit(edit, root)
            return dataclasses.replace(base, edits=edits, outside=outside)
        shape: Any = list[lsp.SymbolInformation] if _flat(data) else list[lsp.DocumentSymbol]
        symbols = convert.symbols(conv.structure(data or [], shape))
        return dataclasses.replace(base, symbols=symbols)
    except SemanticUnavailable as exc:
        raise EditorUnavailable(str(exc)) from None
    except Exception as exc:  # cattrs' structuring errors: not the LSP shape
        raise EditorUnavailable(f"the `{key}` answer is not LSP's: {type(exc).__name__}") from None


def _flat(data: Any) -> bool:
    first = data[0] if isinstance(data, list) and data else None
    return isinstance(first, dict) and "location" in first


def _diagnostics(path: str, found: dict[str, Any]) -> tuple[Diagnostic, ...]:
    from lsprotocol import types as lsp
    from lsprotocol.converters import get_converter

    from langservers import convert

    try:
        return convert.diagnostics(
            path, get_converter().structure(found.get("diagnostics") or [], list[lsp.Diagnostic])
        )
    except Exception as exc:
        why = f"the `diagnostics` answer is not LSP's: {type(exc).__name__}"
        raise EditorUnavailable(why) from None


__all__ = ["CAPABILITY", "REQUEST", "EditorSemantics", "declares_semantic", "editor_front"]
