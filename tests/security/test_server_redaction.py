"""Tracebacks leave the process too (§6.7): a registered key inside an exception's message
is redacted from the server's stderr and from ``window/logMessage`` — the filter covered
the message and not the traceback (``exc_info``) until now."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator

import pytest

from harness.redact import register
from server import create_server
from server.lsp.wire.logs import LspLogHandler, stderr_handler

KEY = "sk-planted-traceback-key-93c1e4f07a"


class Written:
    """A pygls writer that keeps what the server would put on stdout."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes) -> None:
        self.data += data

    def close(self) -> None:
        pass


@pytest.fixture
def planted() -> Iterator[logging.Logger]:
    register(KEY)
    logger = logging.getLogger("server.test_redaction")
    logger.propagate = False
    yield logger
    logger.handlers.clear()
    logger.propagate = True


def fail_with_the_key() -> None:
    try:
        raise ConnectionError(f"the provider said: invalid key {KEY}")
    except ConnectionError as exc:
        raise RuntimeError(f"while retrying with {KEY}") from exc


def log_the_failure(logger: logging.Logger) -> None:
    try:
        fail_with_the_key()
    except RuntimeError:
        logger.exception("the run failed")
    logger.error("again, with the exception object", exc_info=RuntimeError(KEY))
    logger.warning("and a stack", stack_info=True)


def test_stderr_has_no_key_in_tracebacks(planted: logging.Logger) -> None:
    out = io.StringIO()
    planted.addHandler(stderr_handler(logging.DEBUG, out))
    log_the_failure(planted)
    text = out.getvalue()
    assert "Traceback (most recent call last)" in text and "ConnectionError" in text
    assert "[redacted]" in text
    assert KEY not in text and KEY[:12] not in text


async def test_log_messages_to_the_client_have_no_key_in_tracebacks(
    planted: logging.Logger,
) -> None:
    server = create_server()
    written = Written()
    server.lsp.protocol.set_writer(written)
    handler = LspLogHandler(server.lsp.protocol, asyncio.get_running_loop())
    planted.addHandler(handler)
    log_the_failure(planted)
    text = written.data.decode()
    messages = [json.loads(part[part.index("{") :]) for part in text.split("Content-Length")[1:]]
    assert {m["method"] for m in messages} == {"window/logMessage"}
    shown = "\n".join(m["params"]["message"] for m in messages)
    assert "Traceback" in shown and "[redacted]" in shown
    assert KEY not in text and KEY[:12] not in text
