"""Logging: stderr for everything (stdout is the JSON-RPC stream), and the ``server`` and
``harness`` loggers also to the client's ``window/logMessage``.

Both handlers carry ``harness.redact.RedactingFilter``: a registered API key never reaches
stderr or the client (§6.7) — in the message, nor in a traceback attached to it.

A record may be emitted on another thread (the watcher's, a worker's); the message is then
handed to the event loop, because only the loop writes to stdout — two writers would
interleave frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from typing import Self, TextIO

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol

from harness.redact import RedactingFilter
from server.lsp.wire.rpc import notify

FORWARDED_LOGGERS = ("server", "harness")
LEVEL_ENV = "HARNESS_LOG_LEVEL"

_TYPES = (
    (logging.ERROR, types.MessageType.Error),
    (logging.WARNING, types.MessageType.Warning),
    (logging.INFO, types.MessageType.Info),
)


def configure_stderr() -> None:
    """Root logging to stderr at ``$HARNESS_LOG_LEVEL`` (default WARNING)."""
    level = logging.getLevelNamesMapping().get(
        os.environ.get(LEVEL_ENV, "").upper(), logging.WARNING
    )
    root = logging.getLogger()
    root.addHandler(stderr_handler(level))
    root.setLevel(level)
    for name in FORWARDED_LOGGERS:
        logging.getLogger(name).setLevel(min(level, logging.INFO))
    # pygls logs every message body it sends at INFO ("Sending data: …": whole files, whole
    # traces); only DEBUG asks for that.
    logging.getLogger("pygls").setLevel(level if level <= logging.DEBUG else logging.WARNING)


def stderr_handler(level: int, stream: TextIO | None = None) -> logging.Handler:
    """The stderr handler (``stream`` for tests), redacting."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())
    return handler


class LspLogHandler(logging.Handler):
    """Forwards INFO and above to ``window/logMessage``."""

    def __init__(self, protocol: JsonRPCProtocol, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(level=logging.INFO)
        self.protocol = protocol
        self.loop = loop
        self._local = threading.local()
        self.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        self.addFilter(RedactingFilter())

    @classmethod
    def install(cls, protocol: JsonRPCProtocol, loop: asyncio.AbstractEventLoop) -> Self:
        handler = cls(protocol, loop)
        for name in FORWARDED_LOGGERS:
            logging.getLogger(name).addHandler(handler)
        return handler

    def uninstall(self) -> None:
        for name in FORWARDED_LOGGERS:
            logging.getLogger(name).removeHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._local, "busy", False):  # sending failed and logged: no recursion
            return
        try:
            params = types.LogMessageParams(type=_type(record.levelno), message=self.format(record))
        except Exception:
            self.handleError(record)
            return
        if self._on_loop():
            self._send(params)
            return
        with contextlib.suppress(RuntimeError):  # a closed loop: the server is going away
            self.loop.call_soon_threadsafe(self._send, params)

    def _on_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def _send(self, params: types.LogMessageParams) -> None:
        self._local.busy = True
        try:
            notify(self.protocol, types.WINDOW_LOG_MESSAGE, params)
        finally:
            self._local.busy = False


def _type(level: int) -> types.MessageType:
    for threshold, kind in _TYPES:
        if level >= threshold:
            return kind
    return types.MessageType.Log


__all__ = ["LspLogHandler", "configure_stderr", "stderr_handler"]
