"""The JSON-RPC and LSP rules the server enforces on every message before pygls handles it,
where pygls 2.1 answers nothing or the wrong thing.

    a body that is not JSON, or a frame that cannot be read   ParseError (-32700), id null
    not an object, a bad ``jsonrpc``/``id``/``method``, a     InvalidRequest (-32600), with
      batch (each of its requests), a notification sent         the request's id where it
      with an id, an id already in use                          has a usable one
    params that do not fit the method, an unknown command     InvalidParams (-32602), its id
    an unknown method                                         MethodNotFound (-32601), the
                                                                name clipped
    a request before ``initialize``                           ServerNotInitialized (-32002)
    a request after ``shutdown``                              InvalidRequest (pygls: no answer)
    a second ``initialize`` / ``initialized``                 InvalidRequest / ignored
    a client's *response* after ``shutdown``                  handled (pygls drops it:
                                                                openlawlibrary/pygls#605)
    ``exit``                                                  ``exited`` resolves to the LSP
                                                                exit code (0 after shutdown,
                                                                else 1); pygls's ``sys.exit``
                                                                inside a callback is not used
    ``didChange`` of a document never opened                  ignored with a log line (pygls
                                                                raises ``KeyError``, shown to
                                                                the user; cf. pygls#168)

Messages from the client are never echoed back: errors say what is wrong, not the input.
Settings are looked at first, so a key pasted into ``provider.apiKeyEnv`` is registered for
redaction before pygls logs the message (``server.lsp.wire.section``).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import sys
from collections.abc import Generator
from typing import Any
from urllib.parse import unquote

import attrs
import cattrs
from lsprotocol import types
from lsprotocol.types import ResponseErrorMessage
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
)

from harness.redact import redact
from server.lsp.wire.section import register_pasted_key

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
MAX_NAME_CHARS = 100  # of a method or command name quoted in an error
SERVER_NOT_INITIALIZED = -32002
MAX_REPORTED = 3  # structuring errors named in one answer
SETTINGS_METHODS = (types.INITIALIZE, types.WORKSPACE_DID_CHANGE_CONFIGURATION)


class HarnessProtocol(LanguageServerProtocol):
    def __init__(self, server: Any, converter: cattrs.Converter) -> None:
        super().__init__(server, converter)
        self.exited: asyncio.Future[int] | None = None  # set by whoever serves the stream
        self._initialize_seen = False
        self._initialized_seen = False

    # -- what the stream gives ----------------------------------------------------------

    def bad_frame(self, reason: str) -> None:
        log.warning("a frame from the client could not be read (%s): skipped", reason)
        self._error(None, PARSE_ERROR, f"{reason}; skipped to the next `Content-Length` header")

    def receive_body(self, body: bytes) -> None:
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            log.warning("a message from the client is not JSON: %s", type(exc).__name__)
            self._error(None, PARSE_ERROR, f"the message is not JSON ({_short(exc)})")
            return
        self.receive(data)

    def receive(self, data: Any) -> None:
        """One decoded message: checked, then handed to pygls."""
        if isinstance(data, list):
            self._batch(data)
            return
        if not isinstance(data, dict):
            self._error(None, INVALID_REQUEST, "a message must be a JSON object")
            return
        problem, msg_id = _envelope(data)
        if problem is not None:
            if "method" in data or ("result" not in data and "error" not in data):
                self._error(msg_id, INVALID_REQUEST, problem)
            else:
                log.warning("a response from the client was dropped: %s", problem)
            return
        method = data.get("method")
        if method is None:
            self._response(data)
            return
        self._look_at_settings(method, data.get("params"))
        if "id" in data:
            self._request(data, msg_id, method)
        else:
            self._notification(data, method)

    # -- by kind --------------------------------------------------------------------------

    def _request(self, data: dict[str, Any], msg_id: Any, method: str) -> None:
        message_type = self.get_message_type(method)
        refusal = self._refusal(method, msg_id, message_type)
        if refusal is not None:
            self._error(msg_id, *refusal)
            return
        if message_type is None and method not in self.fm.features:
            self._error(msg_id, METHOD_NOT_FOUND, f"Method Not Found: {_clip(method)}")
            return
        structured = self._structure(data, message_type or JsonRPCRequestMessage)
        if isinstance(structured, str):
            self._error(msg_id, INVALID_PARAMS, f"`{method}`: {structured}")
            return
        unknown = _unknown_command(structured, self.fm.commands)
        if unknown is not None:
            self._error(msg_id, INVALID_PARAMS, unknown)
            return
        if method == types.INITIALIZE:
            self._initialize_seen = True
        self.handle_message(structured)

    def _refusal(
        self, method: str, msg_id: Any, message_type: type | None
    ) -> tuple[int, str] | None:
        if message_type is not None and not _has_id(message_type):
            return INVALID_REQUEST, f"`{method}` is a notification: send it without an `id`"
        if self._shutdown:
            return INVALID_REQUEST, "the server is shutting down: only `exit` is accepted"
        if method == types.INITIALIZE and self._initialize_seen:
            return INVALID_REQUEST, "`initialize` was already received"
        if method != types.INITIALIZE and not self._initialize_seen:
            return SERVER_NOT_INITIALIZED, "the server is not initialized yet"
        if msg_id in self._request_futures:
            return INVALID_REQUEST, "a request with this `id` is still in progress"
        return None

    def _notification(self, data: dict[str, Any], method: str) -> None:
        message_type = self.get_message_type(method)
        if message_type is not None and _has_id(message_type):
            log.warning("`%s` sent without an id (it is a request): ignored", method)
            return
        if method != types.EXIT and (self._shutdown or not self._initialize_seen):
            log.info("`%s` before initialize or after shutdown: ignored", method)
            return
        if method == types.INITIALIZED:
            if self._initialized_seen:
                log.warning("a second `initialized`: ignored")
                return
            self._initialized_seen = True
        structured = self._structure(data, message_type or JsonRPCNotification)
        if isinstance(structured, str):
            log.warning("`%s` ignored: %s", method, structured)
            return
        self.handle_message(structured)

    def _response(self, data: dict[str, Any]) -> None:
        if "error" in data:
            message_type: type = ResponseErrorMessage
        else:
            message_type = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
            result = data.get("result")
            for item in result if isinstance(result, list) else ():
                register_pasted_key(item)  # a workspace/configuration answer
        structured = self._structure(data, message_type)
        if isinstance(structured, str):
            log.warning("a response from the client was dropped: %s", structured)
            return
        self.handle_message(structured)

    def _batch(self, items: list[Any]) -> None:
        ids = [
            item["id"]
            for item in items
            if isinstance(item, dict) and "method" in item and _valid_id(item.get("id"))
        ]
        log.warning("a batch of %d messages was refused (LSP has no batches)", len(items))
        reason = "batches are not supported: send each message in its own frame"
        for msg_id in ids or [None]:
            self._error(msg_id, INVALID_REQUEST, reason)

    def handle_message(self, message: Any) -> None:
        """pygls's dispatch without its shutdown check (``receive`` has applied the rules;
        pygls would drop the client's responses too: pygls#605)."""
        ctx = contextvars.copy_context()
        if "error" in attrs.fields_dict(type(message)):
            ctx.run(self._handle_response, message.id, None, message.error)
        elif not hasattr(message, "method"):
            ctx.run(self._handle_response, message.id, message.result)
        elif hasattr(message, "id"):
            ctx.run(self._handle_request, message.id, message.method, message.params)
        else:
            ctx.run(self._handle_notification, message.method, message.params)

    # -- the rules pygls gets wrong ------------------------------------------------------

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> None:  # type: ignore[override]  # no user handler to yield
        code = 0 if self._shutdown else 1
        log.info(
            "exit received (shutdown %s): exit code %d", "first" if code == 0 else "never", code
        )
        if self.exited is None:  # not served by server.lsp.wire.stdio: the plain way
            sys.exit(code)
        if not self.exited.done():
            self.exited.set_result(code)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        uri = params.text_document.uri
        if unquote(uri) not in self.workspace.text_documents:
            log.info("didChange for a document that was never opened: ignored (%s)", uri)
            return
        yield from super().lsp_text_document__did_change(params)

    # -- the way out ---------------------------------------------------------------------

    def notify_json(self, method: str, params: dict[str, Any]) -> None:
        """A notification whose params are sent as they are: an LSP method with a field
        lsprotocol's type does not have (``window/showMessage``'s ``data``), which pygls's
        typed ``notify`` would refuse."""
        try:
            self._send_data({"jsonrpc": "2.0", "method": method, "params": params})
        except Exception as exc:  # BrokenPipeError, a closed transport: the client is gone
            log.debug("could not send %s: %s", method, exc)

    def _send_data(self, data: Any) -> None:
        """pygls's writer, with every registered key redacted from the serialised message
        (§6.7): whatever a part of the server forgot, not one byte sent holds a key. Keys
        are letters, digits and ``-_.``, so the replacement never breaks the JSON; the
        length is counted in bytes after it (pygls counts characters). The writer is
        ``server.lsp.wire.stdio``'s, synchronous."""
        if not data or self.writer is None:
            super()._send_data(data)
            return
        try:
            body = redact(json.dumps(data, default=self._serialize_message)).encode("utf-8")
        except Exception:
            log.exception("a message could not be serialised: not sent")
            return
        header = (
            f"Content-Length: {len(body)}\r\n"
            f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
        )
        self.writer.write(header.encode("ascii") + body if self._include_headers else body)

    # -- helpers -------------------------------------------------------------------------

    def _look_at_settings(self, method: str, params: Any) -> None:
        if method in SETTINGS_METHODS and isinstance(params, dict):
            register_pasted_key(params.get("initializationOptions", params.get("settings")))

    def _structure(self, data: dict[str, Any], message_type: type) -> Any:
        """The message as its lsprotocol type, or what is wrong with it."""
        try:
            return self._converter.structure(data, message_type)
        except cattrs.BaseValidationError as exc:
            return "; ".join(cattrs.transform_error(exc)[:MAX_REPORTED])
        except Exception as exc:
            return f"the message could not be read ({_short(exc)})"

    def _error(self, msg_id: Any, code: int, message: str) -> None:
        """An error answer; ``msg_id`` None is sent as ``"id": null`` (JSON-RPC §5)."""
        self._send_data(
            {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}
        )


def _envelope(data: dict[str, Any]) -> tuple[str | None, Any]:
    """What is wrong with a message's envelope (or None), and its usable id (or None)."""
    msg_id = data.get("id") if _valid_id(data.get("id")) else None
    if "id" in data and msg_id is None:
        return "`id` must be an integer or a string", None
    if data.get("jsonrpc") != "2.0":
        return '`jsonrpc` must be "2.0"', msg_id
    if "method" in data and not isinstance(data["method"], str):
        return "`method` must be a string", msg_id
    if "method" not in data and "id" not in data:
        return "a message needs a `method` (or, for a response, an `id`)", None
    if "method" not in data and "result" not in data and "error" not in data:
        return "a request needs a `method`", msg_id
    return None, msg_id


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _has_id(message_type: type) -> bool:
    return attrs.has(message_type) and "id" in attrs.fields_dict(message_type)


def _unknown_command(message: Any, commands: dict[str, Any]) -> str | None:
    """pygls's error for a command it does not know, with the name clipped (pygls quotes
    the whole name back, however long)."""
    if not isinstance(message, types.ExecuteCommandRequest):
        return None
    name = message.params.command
    if name in commands:
        return None
    return f"Invalid Params: Command name {_clip(name)!r} is not defined"


def _clip(name: str) -> str:
    return name if len(name) <= MAX_NAME_CHARS else name[: MAX_NAME_CHARS - 1] + "…"


def _short(exc: BaseException, limit: int = 120) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["HarnessProtocol"]
