"""Issue 23 item 6: a command that refuses (a user's config mistake, a run already going) is
an answer the client shows; the Output channel does not log it as an "internal error" nor
with a traceback. A fault of the server's own still is."""

from __future__ import annotations

import logging

import pytest
from pygls.exceptions import FeatureRequestError, JsonRpcException, JsonRpcInternalError

from server.lsp.app import create_server
from server.lsp.errors import HARNESS_ERROR


def test_a_refusal_is_logged_as_an_answer_not_an_internal_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = create_server()
    caplog.set_level(logging.DEBUG)
    refusal = JsonRpcException("harness.run: no API key for openai: set …", code=HARNESS_ERROR)
    try:
        raise refusal
    except JsonRpcException:
        logging.getLogger("pygls.protocol.json_rpc").exception("Failed to handle request")
    server.report_server_error(refusal, FeatureRequestError)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert "internal error" not in caplog.text
    assert "harness.run: no API key" in caplog.text  # still said, once, as what it is
    assert "Traceback" not in caplog.text


def test_a_fault_of_the_server_is_still_an_internal_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = create_server()
    caplog.set_level(logging.DEBUG)
    fault = JsonRpcInternalError("harness.run failed unexpectedly: KeyError: 'x'")
    server.report_server_error(fault, FeatureRequestError)
    assert [
        r
        for r in caplog.records
        if r.levelno >= logging.ERROR and "internal error" in r.getMessage()
    ]
